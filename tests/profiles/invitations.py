"""An invitation between two researchers: its words, used by the collaboration tests."""

TOPIC = "Compilers for scientific code"
MESSAGE = "I read your work on compilers and would like to try it on our climate models."
