"""What the app and the command line call on top of the estimators: training with a same-splits
CART beside it, training to a budget of splits, the Compare page's models, a model file opened
against a data set, node sharing explained, step-by-step training, measured splits and drawn data
for teaching, and the choice of models and scores by task."""
