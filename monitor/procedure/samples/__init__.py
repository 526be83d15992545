"""Sample event files for ``table-monitor replay`` (a clean Pai Gow round and faulty ones); see build.py."""
