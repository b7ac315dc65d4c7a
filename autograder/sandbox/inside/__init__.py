"""What runs inside the sandbox, and all of this repository's code it holds (see
``autograder.sandbox``). Host code never imports it: it speaks to it through the protocol."""
