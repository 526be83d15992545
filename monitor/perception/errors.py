"""Perception errors: each names the file or input that was wrong and why."""

from __future__ import annotations


class PerceptionError(Exception):
    """Base class for perception failures."""


class ModelFileError(PerceptionError):
    """A model file (or its metadata) is missing, corrupt, or not the model it should be."""


class ImageReadError(PerceptionError):
    """An image file is missing, empty, or not decodable."""
