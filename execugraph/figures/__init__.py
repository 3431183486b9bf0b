"""Figures: the plotly charts pages draw (`charts`) and their static SVG/PDF export (`static`)."""
