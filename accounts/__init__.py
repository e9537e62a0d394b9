"""Accounts, tokens and authentication."""
