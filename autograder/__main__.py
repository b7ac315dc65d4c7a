import sys

from autograder.cli import main

if __name__ == "__main__":
    sys.exit(main())
