def team_name(name: str) -> str:
    return f"team-{name}"
