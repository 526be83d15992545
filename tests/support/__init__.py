"""What several test packages share and a fixture cannot give: stand-ins, builders, paths (conftest.py
holds the fixtures)."""
