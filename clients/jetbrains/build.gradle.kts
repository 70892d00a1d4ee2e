// The plugin's build, laid out as the IntelliJ Platform Plugin Template lays it out (IntelliJ
// Platform Gradle Plugin 2.x). Where the platform SDK can be downloaded: ./gradlew runIde starts a
// sandbox IDE with the plugin, ./gradlew test runs the core's JUnit suite (the same one
// .ci/clients-jetbrains.sh runs with javac), ./gradlew buildPlugin makes the zip.
//
// The sidecar is bundled: bundleSidecar builds it with the VS Code client's esbuild script
// (clients/vscode/build.mjs, one Node file tree under clients/vscode/dist/sidecar), and
// prepareSandbox copies it into the plugin as sidecar/ (found by LevelCodeProjectService).

plugins {
    id("java")
    id("org.jetbrains.intellij.platform") version "2.5.0"
}

group = providers.gradleProperty("pluginGroup").get()
version = providers.gradleProperty("pluginVersion").get()

java {
    toolchain {
        languageVersion = JavaLanguageVersion.of(17)
    }
}

repositories {
    mavenCentral()
    intellijPlatform {
        defaultRepositories()
    }
}

dependencies {
    implementation("com.google.code.gson:gson:2.10.1")
    testImplementation("org.junit.jupiter:junit-jupiter:5.9.2")
    testRuntimeOnly("org.junit.platform:junit-platform-launcher")

    intellijPlatform {
        create(providers.gradleProperty("platformType"), providers.gradleProperty("platformVersion"))
        bundledPlugin("org.jetbrains.plugins.terminal")
    }
}

intellijPlatform {
    pluginConfiguration {
        name = providers.gradleProperty("pluginName")
        version = providers.gradleProperty("pluginVersion")
        ideaVersion {
            sinceBuild = providers.gradleProperty("pluginSinceBuild")
            untilBuild = provider { null }
        }
    }
}

val repoRoot = layout.projectDirectory.dir("../..")
val vscodeClient = layout.projectDirectory.dir("../vscode")

val bundleSidecar by tasks.registering(Exec::class) {
    description = "Builds the sidecar into one Node file tree (clients/vscode/dist/sidecar)."
    workingDir = vscodeClient.asFile
    commandLine("node", "build.mjs", "--production")
    inputs.dir(repoRoot.dir("server"))
    outputs.dir(vscodeClient.dir("dist/sidecar"))
}

tasks {
    wrapper {
        gradleVersion = providers.gradleProperty("gradleVersion").get()
    }

    test {
        useJUnitPlatform()
        systemProperty("levelcode.repo", repoRoot.asFile.absolutePath)
        // The panel's test needs a display (xvfb-run on a server).
        systemProperty("java.awt.headless", "false")
    }

    prepareSandbox {
        dependsOn(bundleSidecar)
        from(vscodeClient.dir("dist/sidecar")) {
            into(providers.gradleProperty("pluginName").map { "$it/sidecar" })
        }
    }
}
