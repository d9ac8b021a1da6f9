# libfairway/binding: sources and unit tests are added here.
