"""The API kit every app's REST views stand on."""
