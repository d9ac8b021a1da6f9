# libfairway/quota: sources and unit tests are added here.
