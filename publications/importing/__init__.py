"""Import runs: asking for one, getting it to a worker, and carrying it out."""
