"""The dashboard's charts live in the core (`execugraph.figures.charts`) so exports draw the same figures."""

from execugraph.figures.charts import (
    COST_METRICS,
    FOREST_MAX_ROWS,
    NODE_COLOURS,
    category_bars,
    cost_accuracy,
    delta_matrix,
    error_stacks,
    forest,
    heatmap,
    rate_bars,
    retry_curve,
    score_bars,
    step_timeline,
)

__all__ = [
    "COST_METRICS",
    "FOREST_MAX_ROWS",
    "NODE_COLOURS",
    "category_bars",
    "cost_accuracy",
    "delta_matrix",
    "error_stacks",
    "forest",
    "heatmap",
    "rate_bars",
    "retry_curve",
    "score_bars",
    "step_timeline",
]
