package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.tollgate.gateway.config.AdminConfig;
import io.tollgate.gateway.config.GatewayConfig;
import io.tollgate.gateway.warmup.WarmupConfig;
import io.tollgate.rules.config.RulesConfig;
import io.tollgate.rules.live.LiveConfig;

/**
 * Every environment variable that compose, the manifests, the launcher and the end-to-end harness hand to a
 * service names a key that service really reads: its {@code @ConfigMapping} keys, or a Quarkus key of an
 * extension it has.
 */
class ConfigWiringTest {

    /** A variable being set: {@code NAME=} in the launcher, {@code "NAME"} in Java. */
    private static final Pattern ENV_NAME = Pattern.compile("\\b((?:TOLLGATE|QUARKUS)_[A-Z0-9_]+)(?:=|\")");

    static final ConfigKeys GATEWAY = new ConfigKeys(GatewayConfig.class, AdminConfig.class, WarmupConfig.class)
            .with("quarkus.http.host", "quarkus.http.port", "quarkus.management.host", "quarkus.management.port",
                    "quarkus.redis.hosts", "quarkus.redis.client-type",
                    // ./tollgate up --tls: the named TLS configuration's PEM files (the name, gateway, is the launcher's)
                    "quarkus.tls.public.key-store.pem.gateway.cert", "quarkus.tls.public.key-store.pem.gateway.key",
                    "quarkus.tls.public.reload-period", "quarkus.http.tls-configuration-name", "quarkus.http.ssl-port");
    static final ConfigKeys RULES = new ConfigKeys(RulesConfig.class, LiveConfig.class)
            .with("quarkus.http.host", "quarkus.http.port", "quarkus.management.host", "quarkus.management.port",
                    "quarkus.datasource.reactive.url",
                    "quarkus.datasource.jdbc.url", "quarkus.datasource.username", "quarkus.datasource.password",
                    // behind a balancer: the callers' addresses from X-Forwarded-For, believed from it only
                    "quarkus.http.proxy.proxy-address-forwarding", "quarkus.http.proxy.allow-x-forwarded",
                    "quarkus.http.proxy.trusted-proxies");

    @Test
    void theMappingsAreReadAsExpected() {
        assertThat(GATEWAY.properties()).contains("tollgate.gateway.upstream", "tollgate.gateway.routes.*.prefix",
                "tollgate.rules.url", "tollgate.rules.poll-interval", "tollgate.rules.snapshot", "tollgate.store.timeout",
                "tollgate.store.type", "tollgate.gateway.api-key-header", "tollgate.gateway.trusted-proxies");
        assertThat(RULES.properties()).contains("tollgate.admin.token", "tollgate.gateways.live-window");
        assertThat(GATEWAY.properties()).contains("tollgate.admin.token", "tollgate.admin.tokens.*.token",
                "tollgate.admin.tokens.*.scope", "tollgate.rules.token", "tollgate.admin.top.window");
        assertThat(GATEWAY.readsEnv("TOLLGATE_GATEWAY_ROUTES_BILLING_URL")).isTrue();
        assertThat(GATEWAY.readsEnv("TOLLGATE_GATEWAY_UPSTREAMS")).isFalse();
    }

    @Test
    void theQuarkusKeysBelongToExtensionsTheServicesHave() {
        assertThat(Repo.read("gateway-service/pom.xml")).contains("<artifactId>quarkus-redis-client</artifactId>");
        assertThat(Repo.read("rules-service/pom.xml")).contains("<artifactId>quarkus-reactive-pg-client</artifactId>",
                "<artifactId>quarkus-flyway</artifactId>");
        assertThat(Repo.read("rules-service/src/main/resources/application.properties"))
                .contains("quarkus.datasource.reactive.url=", "quarkus.datasource.jdbc.url=");
    }

    @Test
    void composeGivesEachServiceOnlyKeysItReads() {
        JsonNode services = Repo.document("docker/compose.yaml").path("services");
        services.fields().forEachRemaining(service -> {
            boolean gateway = service.getKey().startsWith("gateway-");
            ConfigKeys keys = gateway ? GATEWAY : service.getKey().equals("rules-service") ? RULES : null;
            if (keys != null) {
                service.getValue().path("environment").fieldNames().forEachRemaining(
                        env -> assertThat(keys.readsEnv(env))
                                .as("%s reads %s", service.getKey(), env).isTrue());
            }
        });
    }

    @Test
    void manifestsGiveEachServiceOnlyKeysItReads() {
        for (var file : Repo.yamlFiles("k8s")) {
            for (JsonNode doc : Repo.documents(file)) {
                String name = doc.path("metadata").path("name").asText();
                ConfigKeys keys = name.startsWith("gateway") ? GATEWAY : name.startsWith("rules") ? RULES : null;
                if (keys == null) {
                    continue;
                }
                List<String> names = new ArrayList<>();
                if (doc.path("kind").asText().equals("ConfigMap")) {
                    doc.path("data").fieldNames().forEachRemaining(names::add);
                }
                doc.path("spec").path("template").path("spec").path("containers")
                        .forEach(c -> c.path("env").forEach(e -> {
                            // a variable only other values refer to, $(POD_IP), is for Kubernetes, not the service
                            if (!c.path("env").toString().contains("$(" + e.path("name").asText() + ")")) {
                                names.add(e.path("name").asText());
                            }
                        }));
                names.forEach(env -> assertThat(keys.readsEnv(env))
                        .as("%s in %s reads %s", name,
                                Repo.ROOT.relativize(file), env)
                        .isTrue());
            }
        }
    }

    @Test
    void theLauncherAndTheEndToEndHarnessSetOnlyKeysAServiceReads() {
        for (String file : List.of("tollgate", "e2e/src/test/java/io/tollgate/e2e/support/Stack.java")) {
            Matcher m = ENV_NAME.matcher(Repo.read(file));
            int seen = 0;
            while (m.find()) {
                String env = m.group(1);
                if (env.startsWith("TOLLGATE_TEST_")) {
                    continue;
                }
                seen++;
                assertThat(GATEWAY.readsEnv(env) || RULES.readsEnv(env)).as("%s sets %s", file, env).isTrue();
            }
            assertThat(seen).as("variables found in " + file).isGreaterThan(3);
        }
    }
}
