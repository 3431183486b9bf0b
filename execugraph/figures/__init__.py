"""Figures: the plotly charts pages draw (`charts`) and their static SVG/PDF export (`static`).

`report_figures` draws the figures of one statistics report for the Statistics and
Ablations pages and the export.
"""

__all__ = [
    "charts",
    "frontier",
    "report_figures",
    "static",
]
