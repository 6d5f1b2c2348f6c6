"""Learning without labels: principal components, clustering, and Gaussian mixtures fitted by EM.

- :mod:`.pca`: principal component analysis from the SVD of the centred data (components, explained variance,
  projections, reconstructions and their error, whitening) and probabilistic PCA;
- :mod:`.kmeans`: k-means by Lloyd's algorithm, k-means++ seeding, restarts, and the silhouette;
- :mod:`.mixture`: Gaussian mixtures, their E and M steps, the evidence lower bound and its gap, sampling and BIC.
"""
