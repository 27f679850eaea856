package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.Deployment;

/** Names, ports, probes and images in compose and the manifests agree with the services. */
class ServiceWiringTest {

    private static final Pattern IMAGE = Pattern.compile("tollgate/([a-z-]+):0\\.1\\.0-(jvm|native)");

    @Test
    void deploymentsProbeTheHealthEndpointsOnTheHealthPort() {
        for (String service : List.of("gateway-service", "rules-service", "demo-backend")) {
            Deployment deployment = deployment(service);
            Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
            int port = Repo.SERVICES.get(service);
            assertThat(container.getPorts()).as(service).anySatisfy(p -> assertThat(p.getContainerPort()).isEqualTo(port));
            assertThat(configured(service, "quarkus.http.port")).as(service + " quarkus.http.port")
                    .isEqualTo(String.valueOf(port));
            String healthPort = containerPortName(container, Repo.healthPort(service));
            assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/q/health/ready");
            assertThat(container.getReadinessProbe().getHttpGet().getPort().getStrVal()).as(service + " readiness port")
                    .isEqualTo(healthPort);
            if (container.getLivenessProbe() != null) {
                assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/q/health/live");
                assertThat(container.getLivenessProbe().getHttpGet().getPort().getStrVal())
                        .as(service + " liveness port").isEqualTo(healthPort);
            }
            assertThat(Repo.read(service + "/pom.xml")).as(service + " has SmallRye Health")
                    .contains("quarkus-smallrye-health");
        }
    }

    @Test
    void everyImageNamedHasADockerfileThatBuildsIt() {
        String everything = Repo.read("docker/compose.yaml")
                + String.join("\n",
                        Repo.yamlFiles("k8s").stream().map(f -> Repo.read(Repo.ROOT.relativize(f).toString())).toList());
        Matcher m = IMAGE.matcher(everything);
        Set<String> seen = new HashSet<>();
        while (m.find()) {
            seen.add(m.group());
            String dockerfile = "docker/" + m.group(1) + "/Dockerfile." + m.group(2);
            assertThat(Repo.path(dockerfile)).as(m.group() + " is built by " + dockerfile).isRegularFile();
            assertThat(Repo.read(dockerfile)).contains("-t " + m.group());
        }
        assertThat(seen).contains("tollgate/gateway-service:0.1.0-jvm", "tollgate/rules-service:0.1.0-jvm",
                "tollgate/gateway-service:0.1.0-native");
    }

    @Test
    void composeDependenciesAndScrapeTargetsNameRealServices() {
        JsonNode services = Repo.document("docker/compose.yaml").path("services");
        List<String> names = new ArrayList<>();
        services.fieldNames().forEachRemaining(names::add);
        assertThat(names).contains("rules-service", "gateway-1", "gateway-2", "gateway-3", "demo-backend", "postgres",
                "redis-cluster-init", "prometheus", "grafana");
        assertThat(names.stream().filter(n -> n.matches("redis-\\d"))).hasSize(8);
        services.forEach(service -> service.path("depends_on").fieldNames()
                .forEachRemaining(dependency -> assertThat(names).contains(dependency)));
        JsonNode prometheus = Repo.document("docker/prometheus/prometheus.yml");
        prometheus.path("scrape_configs").forEach(job -> job.path("static_configs").forEach(c -> c.path("targets")
                .forEach(target -> {
                    String[] hostPort = target.asText().split(":");
                    assertThat(names).contains(hostPort[0]);
                    String service = hostPort[0].startsWith("gateway-") ? "gateway-service" : hostPort[0];
                    assertThat(Integer.parseInt(hostPort[1])).as(target + ": the management port")
                            .isEqualTo(Repo.MANAGEMENT.get(service));
                })));
    }

    @Test
    void composeGatewaysReachRedisAndTheRulesServiceByComposeNames() {
        JsonNode env = Repo.document("docker/compose.yaml").path("services").path("gateway-1").path("environment");
        assertThat(env.path("TOLLGATE_RULES_URL").asText()).isEqualTo("http://rules-service:8081");
        assertThat(env.path("QUARKUS_REDIS_HOSTS").asText()).startsWith("redis://redis-1:6379");
        assertThat(env.path("TOLLGATE_GATEWAY_UPSTREAM").asText()).isEqualTo("http://demo-backend:9090");
    }

    static Deployment deployment(String name) {
        return (Deployment) KubernetesModel.baseObject("Deployment", name);
    }

    /** The name of the container's port with this number; fails when it has none. */
    static String containerPortName(Container container, int port) {
        return container.getPorts().stream()
                .filter(p -> p.getContainerPort() == port)
                .map(p -> p.getName())
                .findFirst()
                .orElseThrow(() -> new AssertionError(container.getName() + " declares no port " + port));
    }

    /** A key of the service's application.properties, or null. */
    static String configured(String service, String key) {
        Properties properties = new Properties();
        try {
            properties.load(
                    new StringReader(Files.readString(Repo.path(service + "/src/main/resources/application.properties"))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties.getProperty(key);
    }
}
