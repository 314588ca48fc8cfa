"""CLI commands added by later features (prices, claims, decisions, export)."""
REGISTER: list = []
STATUS_QUERIES: dict[str, str] = {}
