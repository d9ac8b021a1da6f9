# libfairway/fairshare: sources and unit tests are added here.
