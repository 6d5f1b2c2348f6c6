"""Chapters 1 and 2: linear models.

- :mod:`.regression`: the linear model, the sum-of-squares cost, gradient descent, SGD and the normal equations;
- :mod:`.basis`: polynomial, Gaussian and sigmoid basis functions;
- :mod:`.robust`: losses of the residual (MSE, MAE, Huber, Tukey) and robust regression by reweighted least squares;
- :mod:`.lasso`: L1-regularised regression by coordinate descent;
- :mod:`.logistic`: the logistic model, the cross-entropy cost, gradient descent and Newton's method;
- :mod:`.softmax_regression`: K classes, the softmax and the categorical cross-entropy;
- :mod:`.perceptron`: Rosenblatt's perceptron;
- :mod:`.glm`: Newton's method for any cost, and Poisson regression.
"""
