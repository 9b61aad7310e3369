"""Claiming a researcher record, reviewing claims, and what the holder may change."""
