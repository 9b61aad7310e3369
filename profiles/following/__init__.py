"""Following researchers: follows, notifications of new works and citations, the digest."""
