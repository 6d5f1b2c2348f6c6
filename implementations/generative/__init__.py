"""Chapter 9: generative models.

- :mod:`.gan`: generative adversarial networks;
- :mod:`.vae`: variational autoencoders;
- :mod:`.diffusion`: denoising diffusion probabilistic models;
- :mod:`.mmd`: the maximum mean discrepancy and the modes a sampler covers, to judge them all.
"""
