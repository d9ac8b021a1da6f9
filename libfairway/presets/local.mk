# libfairway/presets: sources and unit tests are added here.
