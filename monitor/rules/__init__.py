"""Pure rules of the room's games: cards, hand values, settings, settlement. No I/O, no global state."""
