"""The sandbox seen from the judge: never imported inside the sandbox (see
``autograder.sandbox``)."""
