rootProject.name = "levelcode-sessions"
