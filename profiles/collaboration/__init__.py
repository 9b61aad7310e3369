"""Invitations between researchers, conversations, blocks and reports."""
