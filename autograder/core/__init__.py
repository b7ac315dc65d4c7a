"""What ``check``, ``grade`` and ``drill`` share: ``extract`` (a learner's file or notebook into the
code to run), ``registry`` (each exercise with its check), ``judge`` (a submission's checks run
into ``Result``s) and ``mistakes`` (the catalogue of known mistakes)."""
