"""Chapter 3: kernel methods.

- :mod:`.kernels`: kernels and their Gram matrices, kernel ridge regression, random Fourier features;
- :mod:`.svm`: support vector machines, primal (hinge loss) and dual (SMO), with kernels.
"""
