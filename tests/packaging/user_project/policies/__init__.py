"""The team's own policies package."""

TEAM_TAGS = {"team": "ml-platform"}
