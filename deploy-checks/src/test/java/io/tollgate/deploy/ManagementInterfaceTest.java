package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;

/**
 * Health, metrics and operations of the gateway and the rules service live on their management interface, and
 * every deployment reads them there: the probes and the scrape target it, the Services publish only the public
 * port, and a NetworkPolicy lets only the scraper and operators reach it.
 */
class ManagementInterfaceTest {

    private static final String MANAGEMENT = "management";

    @Test
    void servicesServeTheirManagementInterfaceOnItsPort() {
        Repo.MANAGEMENT.forEach((service, port) -> {
            assertThat(ServiceWiringTest.configured(service, "quarkus.management.enabled")).as(service).isEqualTo("true");
            assertThat(ServiceWiringTest.configured(service, "quarkus.management.port")).as(service)
                    .isEqualTo(String.valueOf(port));
            assertThat(ServiceWiringTest.containerPortName(container(service), port)).as(service).isEqualTo(MANAGEMENT);
        });
    }

    @Test
    void prometheusScrapesTheManagementPort() {
        Repo.MANAGEMENT.forEach((service, port) -> {
            Map<String, String> annotations = ServiceWiringTest.deployment(service).getSpec().getTemplate().getMetadata()
                    .getAnnotations();
            assertThat(annotations).as(service).containsEntry("prometheus.io/scrape", "true")
                    .containsEntry("prometheus.io/port", String.valueOf(port))
                    .containsEntry("prometheus.io/path", "/q/metrics");
        });
    }

    @Test
    void theServicesPublishOnlyThePublicPort() {
        Repo.MANAGEMENT.keySet().forEach(service -> {
            Service published = (Service) KubernetesModel.baseObject("Service", service);
            assertThat(published.getSpec().getPorts()).as(service).allSatisfy(p -> {
                assertThat(p.getTargetPort().getStrVal()).isEqualTo("http");
                assertThat(p.getPort()).isEqualTo(Repo.SERVICES.get(service));
            });
        });
    }

    @Test
    void aNetworkPolicyOpensTheManagementPortToTheScraperAndOperatorsOnly() {
        NetworkPolicy policy = (NetworkPolicy) KubernetesModel.baseObject("NetworkPolicy", "management-ingress");
        LabelSelector pods = policy.getSpec().getPodSelector();
        assertThat(pods.getMatchExpressions()).as("the pods it guards").anySatisfy(e -> {
            assertThat(e.getKey()).isEqualTo("app.kubernetes.io/name");
            assertThat(e.getOperator()).isEqualTo("In");
            assertThat(e.getValues()).containsExactlyInAnyOrderElementsOf(Repo.MANAGEMENT.keySet());
        });
        assertThat(policy.getSpec().getPolicyTypes()).contains("Ingress");
        List<NetworkPolicyIngressRule> rules = policy.getSpec().getIngress();
        assertThat(rules).as("the public port, open to all").anySatisfy(rule -> {
            assertThat(rule.getFrom()).isNullOrEmpty();
            assertThat(portNames(rule)).containsExactly("http");
        });
        NetworkPolicyIngressRule management = rules.stream().filter(r -> portNames(r).contains(MANAGEMENT)).findFirst()
                .orElseThrow(() -> new AssertionError("no ingress rule names the port " + MANAGEMENT));
        assertThat(management.getFrom()).as("who reaches the management port").anySatisfy(peer -> {
            assertThat(peer.getNamespaceSelector()).as("the scraper's namespace").isNotNull();
            assertThat(peer.getPodSelector().getMatchLabels()).containsEntry("app.kubernetes.io/name", "prometheus");
        }).anySatisfy(peer -> assertThat(peer.getPodSelector().getMatchLabels()).containsKey("tollgate.io/operator"));
        for (NetworkPolicyIngressRule rule : rules) {
            boolean coversManagement = portNames(rule).isEmpty() || portNames(rule).contains(MANAGEMENT);
            if (coversManagement) {
                assertThat(rule.getFrom()).as("a rule that opens the management port names its peers").isNotEmpty();
            }
        }
    }

    @Test
    void composePublishesAndChecksTheManagementPortAndPrometheusScrapesIt() {
        JsonNode services = Repo.document("docker/compose.yaml").path("services");
        for (String name : List.of("rules-service", "gateway-1", "gateway-2", "gateway-3")) {
            int port = Repo.MANAGEMENT.get(name.startsWith("gateway-") ? "gateway-service" : name);
            JsonNode service = services.path(name);
            List<String> published = new ArrayList<>();
            service.path("ports").forEach(p -> published.add(p.asText()));
            assertThat(published).as(name + " publishes its management port on the host's loopback only")
                    .anySatisfy(p -> assertThat(p).startsWith("127.0.0.1:").endsWith(":" + port));
            assertThat(service.path("healthcheck").path("test").toString()).as(name + " healthcheck")
                    .contains("http://127.0.0.1:" + port + "/q/health/ready");
        }
    }

    private static List<String> portNames(NetworkPolicyIngressRule rule) {
        List<String> names = new ArrayList<>();
        if (rule.getPorts() != null) {
            for (NetworkPolicyPort port : rule.getPorts()) {
                IntOrString value = port.getPort();
                names.add(value.getStrVal() != null ? value.getStrVal() : String.valueOf(value.getIntVal()));
            }
        }
        return names;
    }

    private static Container container(String service) {
        return ServiceWiringTest.deployment(service).getSpec().getTemplate().getSpec().getContainers().get(0);
    }
}
