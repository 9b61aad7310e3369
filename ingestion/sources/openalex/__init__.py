"""OpenAlex: payloads mapped to records (``mapping``, ``entities``) and pages fetched
with pyalex (``fetching``); ``values`` reads the nullable fields both meet."""
