package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Every way the project starts is closed by default: no well-known token in compose, the manifests or the
 * launcher; compose publishes only the gateways' public port; the launcher binds its services to loopback.
 */
class SafeDefaultsTest {

    /** Tokens that have been shipped as examples: whoever read the docs knows them. */
    private static final List<String> KNOWN_TOKENS = List.of("dev-admin-token", "change-me");
    /** The tokens compose requires: the admin token, and the gateways' own. */
    private static final List<String> REQUIRED_TOKENS = List.of("${TOLLGATE_ADMIN_TOKEN:?", "${TOLLGATE_GATEWAY_TOKEN:?");
    /** A published port on the host: {@code [address:]host:container}. */
    private static final Pattern PUBLISHED = Pattern.compile("(?:(.+):)?(\\d+):(\\d+)");

    @Test
    void composePublishesOnlyTheGatewaysPublicPort() {
        JsonNode services = Repo.document("docker/compose.yaml").path("services");
        List<String> gateways = new ArrayList<>();
        services.fields().forEachRemaining(service -> {
            String name = service.getKey();
            JsonNode ports = service.getValue().path("ports");
            boolean optional = service.getValue().has("profiles");
            ports.forEach(p -> {
                Matcher m = PUBLISHED.matcher(p.asText());
                assertThat(m.matches()).as(name + " publishes " + p.asText() + " in the short syntax").isTrue();
                if (name.startsWith("gateway-")) {
                    gateways.add(name);
                    assertThat(m.group(3)).as(name + " publishes its public port only")
                            .isEqualTo(String.valueOf(Repo.SERVICES.get("gateway-service")));
                    assertThat(m.group(1)).as(name + ": loopback unless TOLLGATE_LISTEN says otherwise")
                            .isEqualTo("${TOLLGATE_LISTEN:-127.0.0.1}");
                } else {
                    // only an optional tool (a profile, e.g. observability) may publish, and on loopback only
                    assertThat(optional).as(name + " publishes " + p.asText() + " by default").isTrue();
                    assertThat(m.group(1)).as(name + " publishes on the host's loopback only").isEqualTo("127.0.0.1");
                }
            });
        });
        assertThat(gateways).containsExactlyInAnyOrder("gateway-1", "gateway-2", "gateway-3");
    }

    @Test
    void composeRefusesToStartWithoutItsTokensAndCarriesNone() {
        JsonNode services = Repo.document("docker/compose.yaml").path("services");
        List<String> tokens = new ArrayList<>();
        services.fields().forEachRemaining(service -> service.getValue().path("environment").fields()
                .forEachRemaining(env -> {
                    if (env.getKey().endsWith("_TOKEN")) {
                        tokens.add(service.getKey());
                        String value = env.getValue().asText();
                        assertThat(REQUIRED_TOKENS).as(service.getKey() + " " + env.getKey() + ": a required token")
                                .anyMatch(value::startsWith);
                        assertThat(value).as(service.getKey() + " " + env.getKey()).endsWith("}");
                    }
                }));
        assertThat(tokens).as("services given the token").contains("rules-service", "gateway-1", "gateway-2",
                "gateway-3");
        String compose = Repo.read("docker/compose.yaml");
        for (String variable : List.of("TOLLGATE_ADMIN_TOKEN", "TOLLGATE_GATEWAY_TOKEN")) {
            assertThat(compose).as("a default for " + variable).doesNotContain("${" + variable + ":-")
                    .doesNotContain("${" + variable + "-");
        }
        assertThat(compose).doesNotContain(KNOWN_TOKENS.get(0));
    }

    @Test
    void kubernetesCarriesNoTokenNorPassword() {
        for (var file : Repo.yamlFiles("k8s")) {
            String text = Repo.read(Repo.ROOT.relativize(file).toString());
            for (String token : KNOWN_TOKENS) {
                assertThat(text).as(Repo.ROOT.relativize(file) + " names " + token).doesNotContain(token);
            }
            for (JsonNode doc : Repo.documents(file)) {
                if (doc.path("kind").asText().equals("Secret")) {
                    assertThat(doc.has("data") || doc.has("stringData"))
                            .as(Repo.ROOT.relativize(file) + ": a Secret with values, in git").isFalse();
                }
                doc.path("secretGenerator").forEach(generator -> generator.path("literals").forEach(
                        literal -> assertThat(literal.asText()).as(Repo.ROOT.relativize(file) + " generates "
                                + generator.path("name").asText() + " from a literal").startsWith("username=")));
            }
        }
    }

    @Test
    void theDevOverlayMakesItsSecretsFromFilesGitIgnores() {
        JsonNode generators = Kustomizations.kustomization(Repo.path("k8s/overlays/dev")).path("secretGenerator");
        List<String> files = new ArrayList<>();
        generators.forEach(g -> g.path("files").forEach(f -> files.add(f.asText())));
        assertThat(files).contains("token=secrets/admin-token", "password=secrets/postgres-password");
        assertThat(Repo.read("k8s/overlays/dev/secrets/.gitignore").lines()).contains("*");
    }

    @Test
    void theLauncherBindsEveryServiceToLoopbackAndMakesItsOwnToken() {
        String launcher = Repo.read("tollgate");
        assertThat(launcher).as("the default address").contains("\nLISTEN=127.0.0.1\n");
        // every Java service starts through start_java, which binds both interfaces to LISTEN
        assertThat(launcher).contains("QUARKUS_HTTP_HOST=\"$LISTEN\" QUARKUS_MANAGEMENT_HOST=\"$LISTEN\"");
        assertThat(launcher.lines().filter(l -> l.contains("nohup \"$JAVA\""))).as("Java services started")
                .singleElement().asString().contains("QUARKUS_HTTP_HOST=\"$LISTEN\"");
        // the training run is the launcher's own: always on loopback
        assertThat(launcher.lines().filter(l -> l.contains("-XX:AOTCacheOutput") && !l.strip().startsWith("#")))
                .singleElement().asString()
                .contains("QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_MANAGEMENT_HOST=127.0.0.1");
        List<String> redis = launcher.lines().filter(l -> l.strip().startsWith("redis-server ")).toList();
        assertThat(redis).isNotEmpty().allSatisfy(l -> assertThat(l).contains("--bind 127.0.0.1"));
        assertThat(launcher).contains("listen_addresses=127.0.0.1");
        assertThat(launcher).doesNotContain("dev-admin-token").contains("/dev/urandom");
    }

    @Test
    void theLaunchersOwnGatewaysNeverRegister() {
        String launcher = Repo.read("tollgate");
        assertThat(launcher).contains("TOLLGATE_GATEWAY_INSTANCE_ID=aot-training TOLLGATE_RULES_REGISTER=false");
        Matcher demo = Pattern.compile("start_java \"demo-local-\\$i\"[^>]*>/dev/null").matcher(launcher);
        assertThat(demo.find()).as("the demo's gateways start").isTrue();
        assertThat(demo.group()).contains("TOLLGATE_RULES_REGISTER=false");
        assertThat(ConfigWiringTest.GATEWAY.readsEnv("TOLLGATE_RULES_REGISTER")).isTrue();
    }
}
