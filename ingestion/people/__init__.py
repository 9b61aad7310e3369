"""Who is who in the records held here: the identity engine read against the database."""
