package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class DockerfilesTest {

    /** Where the JVM images take the app from: the aot-jar, built to target/aot-jar as the launcher does. */
    static final String AOT_JAR = "target/aot-jar";
    private static final Pattern COPY_FROM_BUILD = Pattern.compile("COPY --from=\\w+ .*?/src/(\\S+)\\s+\\S+$",
            Pattern.MULTILINE);

    static Stream<String> jvmImages() {
        return Repo.SERVICES.keySet().stream().sorted();
    }

    static Stream<String> nativeImages() {
        return Stream.of("gateway-service", "rules-service");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jvmImages")
    void jvmImageCopiesTheWholeClassPathOfTheAotJar(String service) throws IOException {
        String dockerfile = Repo.read("docker/" + service + "/Dockerfile.jvm");
        assertThat(dockerfile).contains("-pl " + service + " ")
                .contains("-Dquarkus.package.jar.type=aot-jar -Dquarkus.package.output-directory=aot-jar");
        Path app = Repo.path(service + "/" + AOT_JAR);
        assertThat(app.resolve("quarkus-run.jar"))
                .as("%s's aot-jar (./tollgate test and ./tollgate up build it; or ./mvnw package -pl %s -am"
                        + " -Dquarkus.package.jar.type=aot-jar -Dquarkus.package.output-directory=aot-jar)",
                        service, service)
                .exists();
        List<String> copied = copiedPaths(dockerfile);
        assertThat(copied).isNotEmpty();
        List<String> inImage = new ArrayList<>();
        for (String path : copied) {
            String prefix = service + "/" + AOT_JAR + "/";
            assertThat(path).as("docker/%s/Dockerfile.jvm copies %s", service, path).startsWith(prefix);
            assertThat(Repo.path(path)).as("docker/%s/Dockerfile.jvm copies %s", service, path).exists();
            inImage.add(path.substring(prefix.length()));
        }
        // every entry of the launcher jar's class path lands in the image
        for (String entry : classPath(app.resolve("quarkus-run.jar"))) {
            assertThat(inImage).as("%s's class path entry %s is in the image", service, entry)
                    .anyMatch(c -> c.equals(entry) || c.endsWith("/") && entry.startsWith(c));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jvmImages")
    void theAotCacheIsTrainedByTheJdkAndFlagsThatRunIt(String service) {
        String dockerfile = Repo.read("docker/" + service + "/Dockerfile.jvm");
        List<Stage> stages = stages(dockerfile);
        Stage build = stages.get(0);
        Stage last = stages.get(stages.size() - 1);
        Stage train = stages.stream().filter(s -> s.body.contains("aot-train ")).findFirst().orElseThrow();
        assertThat(train.image).as("%s: training stage image", service).isEqualTo(last.image);
        assertThat(jdkMajor(train.image)).as("%s: JDK of %s", service, train.image).isGreaterThanOrEqualTo(25)
                .isEqualTo(jdkMajor(last.image))
                .isEqualTo(jdkMajor(build.image));
        assertThat(train.body).contains("ARG JAVA_OPTS").contains("JAVA_OPTS=\"$JAVA_OPTS\" aot-train");
        assertThat(train.body).as("%s: trained on its port, /q/* on its health port", service)
                .contains("aot-train " + Repo.SERVICES.get(service) + " " + Repo.healthPort(service) + " ");
        assertThat(last.body).contains("ARG JAVA_OPTS")
                .contains("ENV JAVA_OPTS=\"$JAVA_OPTS\"")
                .contains("java $JAVA_OPTS -XX:AOTCache=app.aot")
                .contains("-jar quarkus-run.jar")
                .contains("COPY --from=train");
        assertThat(train.body).contains("MALLOC_ARENA_MAX=2");
        assertThat(last.body).contains("MALLOC_ARENA_MAX=2");
        assertThat(dockerfile).contains("COPY docker/aot-train.sh ");
        assertThat(Repo.path("docker/aot-train.sh")).isExecutable();
        assertThat(Repo.read("docker/aot-train.sh")).contains("-XX:AOTCacheOutput=app.aot -jar quarkus-run.jar");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jvmImages")
    void imagesRunWithTheLaunchersJvmFlags(String service) {
        Matcher launcher = Pattern.compile("TOLLGATE_JAVA_OPTS:-\"([^\"]+)\"").matcher(Repo.read("tollgate"));
        assertThat(launcher.find()).as("the launcher's default TOLLGATE_JAVA_OPTS").isTrue();
        Matcher image = Pattern.compile("(?m)^ARG JAVA_OPTS=\"([^\"]+)\"$")
                .matcher(Repo.read("docker/" + service + "/Dockerfile.jvm"));
        assertThat(image.find()).as("docker/%s/Dockerfile.jvm's ARG JAVA_OPTS", service).isTrue();
        String expected = launcher.group(1);
        if (service.equals("rules-service")) {
            Matcher rules = Pattern.compile("TOLLGATE_RULES_JAVA_OPTS-\"([^\"]+)\"").matcher(Repo.read("tollgate"));
            assertThat(rules.find()).as("the launcher's default TOLLGATE_RULES_JAVA_OPTS").isTrue();
            expected += " " + rules.group(1);
        }
        assertThat(image.group(1)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nativeImages")
    void nativeImageCompilesTheSourcesQuarkusGenerates(String service) {
        String dockerfile = Repo.read("docker/" + service + "/Dockerfile.native");
        // No native-image here, so the paths are checked against Quarkus's conventions, not a real build.
        assertThat(dockerfile).contains("-Pnative -Dquarkus.native.sources-only=true -pl " + service)
                .contains("/src/" + service + "/target/native-sources")
                .contains("native-image $(cat native-image.args)");
        assertThat(Files.isDirectory(Repo.path(service + "/target"))).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jvmImages")
    void imagesRunAsNonRootAndExposeTheServicePorts(String service) {
        for (String flavour : List.of("jvm", "native")) {
            if (flavour.equals("native") && service.equals("demo-backend")) {
                continue;
            }
            String dockerfile = Repo.read("docker/" + service + "/Dockerfile." + flavour);
            int port = Repo.SERVICES.get(service);
            int health = Repo.healthPort(service);
            assertThat(dockerfile).as(service + " " + flavour)
                    .containsPattern("(?m)^USER (185|1001)$")
                    .containsPattern("(?m)^EXPOSE " + port + (health == port ? "" : " " + health) + "$")
                    .contains("HEALTHCHECK ")
                    .contains("http://127.0.0.1:" + health + "/q/health/live")
                    .contains("-t tollgate/" + service + ":0.1.0-" + flavour);
        }
    }

    static List<String> copiedPaths(String dockerfile) {
        List<String> paths = new ArrayList<>();
        Matcher m = COPY_FROM_BUILD.matcher(dockerfile);
        while (m.find()) {
            if (!m.group(0).contains("--from=native")) {
                paths.add(m.group(1));
            }
        }
        return paths;
    }

    private static List<String> classPath(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            String classPath = file.getManifest().getMainAttributes().getValue("Class-Path");
            assertThat(classPath).as("Class-Path of %s", jar).isNotBlank();
            return List.of(classPath.trim().split("\\s+"));
        }
    }

    /** One FROM and what follows it; the image with the file's ARG defaults filled in. */
    record Stage(String image, String body) {
    }

    static List<Stage> stages(String dockerfile) {
        Map<String, String> args = new HashMap<>();
        Matcher arg = Pattern.compile("(?m)^ARG (\\w+)=\"?([^\"\\n]*)\"?$").matcher(dockerfile);
        while (arg.find()) {
            args.putIfAbsent(arg.group(1), arg.group(2));
        }
        List<Stage> stages = new ArrayList<>();
        String[] parts = dockerfile.split("(?m)^(?=FROM )");
        for (String part : parts) {
            if (!part.startsWith("FROM ")) {
                continue;
            }
            String image = part.substring(5, part.indexOf('\n')).trim().split("\\s+")[0];
            Matcher ref = Pattern.compile("\\$\\{(\\w+)}").matcher(image);
            image = ref.replaceAll(r -> Matcher.quoteReplacement(args.getOrDefault(r.group(1), r.group())));
            stages.add(new Stage(image, part));
        }
        return stages;
    }

    /** The JDK feature release an image's tag names: maven:3.9-eclipse-temurin-25, eclipse-temurin:25-jre. */
    static int jdkMajor(String image) {
        Matcher m = Pattern.compile("(?:temurin-|openjdk-|:)(\\d+)(?=[-.]|$)").matcher(image);
        int major = -1;
        while (m.find()) {
            major = Integer.parseInt(m.group(1));
        }
        if (major < 0) {
            throw new IllegalArgumentException("no JDK version in the image name " + image);
        }
        return major;
    }
}
