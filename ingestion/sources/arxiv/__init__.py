"""arXiv: feeds read into payloads (``feed``), payloads mapped to records
(``mapping``) and live paging (``fetching``)."""
