"""The realistic stack lives in the model so the benchmark can use it."""

from model.trn.synthetic import item_count, realistic_stack  # noqa: F401
