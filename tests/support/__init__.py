"""What tests share: waiting for a condition (`waiting`), and nothing that belongs to one area only."""
