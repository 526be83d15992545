"""Measuring perception on labelled pictures from outside the renderer (real photographs)."""
