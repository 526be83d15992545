"""Table events: the versioned contract between seeing (perception, sensors) and judging (procedure)."""
