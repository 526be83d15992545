"""Training: the only package that imports torch and ultralytics. Never imported by the runtime."""
