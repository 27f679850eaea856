package io.tollgate.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;

/**
 * Gateways hold a token of their own, of scope {@code gateway} at the rules service, and never the admin token;
 * the rules service knows that token by the same source; the management URL each gateway reports is one the
 * rules service's live view may call (its host is the address the poll comes from, or on
 * {@code tollgate.live.allowed-hosts}) and can reach. Checked in compose, the Kubernetes base and overlays, and
 * the launcher.
 */
class GatewayTokenWiringTest {

    private static final String ADMIN = "TOLLGATE_ADMIN_TOKEN";
    private static final String GATEWAY = "TOLLGATE_GATEWAY_TOKEN";
    /** {@code TOLLGATE_ADMIN_TOKENS__<NAME>__TOKEN}: a named token of the rules service. */
    private static final Pattern NAMED_TOKEN = Pattern.compile("TOLLGATE_ADMIN_TOKENS__([A-Z0-9_]+)__TOKEN");
    private static final int GATEWAY_MANAGEMENT = Repo.MANAGEMENT.get("gateway-service");

    @Test
    void composeGivesTheGatewaysOnlyTheGatewayTokenAndTheRulesServiceKnowsItAsAGatewayToken() {
        JsonNode services = Repo.document("docker/compose.yaml").path("services");
        List<String> gateways = new ArrayList<>();
        services.fields().forEachRemaining(service -> {
            if (!service.getKey().startsWith("gateway-")) {
                return;
            }
            gateways.add(service.getKey());
            Map<String, String> env = env(service.getValue());
            assertThat(env.get("TOLLGATE_RULES_TOKEN")).as(service.getKey() + "'s token to the rules service")
                    .startsWith("${" + GATEWAY + ":?");
            assertThat(env).as(service.getKey() + " holds no admin token").doesNotContainKey(ADMIN);
            assertThat(env.values()).as(service.getKey() + " is handed the admin token under no name")
                    .noneMatch(value -> value.contains(ADMIN));
        });
        assertThat(gateways).containsExactlyInAnyOrder("gateway-1", "gateway-2", "gateway-3");

        Map<String, String> rules = env(services.path("rules-service"));
        assertThat(rules.get(ADMIN)).startsWith("${" + ADMIN + ":?");
        assertThat(gatewayScoped(rules)).as("the rules service's gateway-scoped token").startsWith("${" + GATEWAY + ":?");
    }

    @Test
    void composesGatewaysReportManagementUrlsTheLiveViewMayCall() {
        JsonNode services = Repo.document("docker/compose.yaml").path("services");
        String allowed = env(services.path("rules-service")).getOrDefault("TOLLGATE_LIVE_ALLOWED_HOSTS", "");
        List<String> allowedHosts = Arrays.stream(allowed.split(",")).map(String::strip).toList();
        services.fields().forEachRemaining(service -> {
            if (!service.getKey().startsWith("gateway-")) {
                return;
            }
            // in compose a poll comes from the container's address, never the name the gateway reports: the name
            // must be allowed, and be the gateway's own, on its management port
            URI url = URI.create(env(service.getValue()).getOrDefault("TOLLGATE_GATEWAY_ADMIN_URL", ""));
            assertThat(url.getHost()).as(service.getKey() + "'s reported management host").isEqualTo(service.getKey())
                    .isIn(allowedHosts);
            assertThat(url.getPort()).as(service.getKey() + "'s management port").isEqualTo(GATEWAY_MANAGEMENT);
        });
    }

    @Test
    void kubernetesGivesTheGatewaysOnlyTheGatewayTokenSecret() {
        Container gateway = container("gateway-service");
        assertThat(secretOf(gateway, "TOLLGATE_RULES_TOKEN")).isEqualTo("gateway-token");
        assertThat(gateway.getEnv()).as("the gateway's variables").noneMatch(e -> e.getName().equals(ADMIN));
        assertThat(gateway.getEnv()).as("no variable of the gateway reads the admin token's Secret")
                .noneMatch(e -> "rules-admin-token".equals(secretName(e)));
        assertThat(gateway.getEnvFrom()).as("no Secret handed whole").allMatch(from -> from.getSecretRef() == null);

        Container rules = container("rules-service");
        assertThat(secretOf(rules, ADMIN)).isEqualTo("rules-admin-token");
        Map<String, String> rulesEnv = new TreeMap<>();
        rules.getEnv().forEach(e -> rulesEnv.put(e.getName(), e.getValue() != null ? e.getValue() : "secret:" + secretName(e)));
        assertThat(gatewayScoped(rulesEnv)).isEqualTo("secret:gateway-token");
    }

    @Test
    void kubernetesGatewaysReportTheirPodAddressWhichTheRulesServiceMayReach() {
        Container gateway = container("gateway-service");
        List<String> names = gateway.getEnv().stream().map(EnvVar::getName).toList();
        EnvVar podIp = gateway.getEnv().get(names.indexOf("POD_IP"));
        assertThat(podIp.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.podIP");
        EnvVar url = gateway.getEnv().get(names.indexOf("TOLLGATE_GATEWAY_ADMIN_URL"));
        // the pod IP is where the gateway's polls come from: the rule needs no allow-list; $(POD_IP) is expanded
        // only when defined before the variable that uses it
        assertThat(url.getValue()).isEqualTo("http://$(POD_IP):" + GATEWAY_MANAGEMENT);
        assertThat(names.indexOf("POD_IP")).isLessThan(names.indexOf("TOLLGATE_GATEWAY_ADMIN_URL"));

        NetworkPolicy liveView = (NetworkPolicy) KubernetesModel.baseObject("NetworkPolicy", "gateway-management-from-rules");
        assertThat(liveView.getSpec().getPodSelector().getMatchLabels())
                .containsEntry("app.kubernetes.io/name", "gateway-service");
        assertThat(liveView.getSpec().getIngress()).singleElement().satisfies(rule -> {
            assertThat(rule.getFrom()).singleElement().satisfies(peer -> assertThat(
                    peer.getPodSelector().getMatchLabels()).containsEntry("app.kubernetes.io/name", "rules-service"));
            assertThat(rule.getPorts()).singleElement()
                    .satisfies(port -> assertThat(port.getPort().getStrVal()).isEqualTo("management"));
        });
    }

    @Test
    void theDevOverlayGeneratesTheGatewayTokenAndProdNamesIt() {
        JsonNode generators = Kustomizations.kustomization(Repo.path("k8s/overlays/dev")).path("secretGenerator");
        Map<String, List<String>> files = new TreeMap<>();
        generators.forEach(g -> {
            List<String> of = new ArrayList<>();
            g.path("files").forEach(f -> of.add(f.asText()));
            files.put(g.path("name").asText(), of);
        });
        assertThat(files).containsEntry("gateway-token", List.of("token=secrets/gateway-token"))
                .containsEntry("rules-admin-token", List.of("token=secrets/admin-token"));
        assertThat(Repo.read("k8s/overlays/prod/kustomization.yaml")).contains("gateway-token (key token)");
    }

    @Test
    void theLauncherPollsWithTheGatewayTokenWhichTheRulesServiceKnowsAsAGatewayToken() {
        String launcher = Repo.read("tollgate");
        Matcher named = Pattern.compile("TOLLGATE_ADMIN_TOKENS__([A-Z0-9_]+)__TOKEN=\"\\$GATEWAY_TOKEN\"").matcher(launcher);
        assertThat(named.find()).as("the rules service is given the gateway token").isTrue();
        assertThat(launcher).contains("TOLLGATE_ADMIN_TOKENS__" + named.group(1) + "__SCOPE=gateway");
        Matcher gateways = Pattern.compile("start_java \"(gateway-\\$i|demo-local-\\$i)\"[^&>]*").matcher(launcher);
        int started = 0;
        while (gateways.find()) {
            started++;
            assertThat(gateways.group()).as(gateways.group(1) + " polls with the gateway token")
                    .contains("TOLLGATE_RULES_TOKEN=\"$GATEWAY_TOKEN\"");
        }
        assertThat(started).as("the fleet's and the demo's gateways").isEqualTo(2);
        assertThat(launcher).contains("GATEWAY_TOKEN_FILE=\"$STATE/gateway-token\"");
    }

    /** The value of the rules service's named token whose scope is {@code gateway}; fails unless exactly one. */
    private static String gatewayScoped(Map<String, String> env) {
        List<String> found = new ArrayList<>();
        env.forEach((name, value) -> {
            Matcher m = NAMED_TOKEN.matcher(name);
            if (m.matches() && "gateway".equals(env.get("TOLLGATE_ADMIN_TOKENS__" + m.group(1) + "__SCOPE"))) {
                found.add(value);
            }
        });
        assertThat(found).as("named tokens of scope gateway").hasSize(1);
        return found.get(0);
    }

    private static Map<String, String> env(JsonNode service) {
        Map<String, String> env = new TreeMap<>();
        service.path("environment").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
        return env;
    }

    private static Container container(String deployment) {
        return ServiceWiringTest.deployment(deployment).getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    private static String secretOf(Container container, String variable) {
        return container.getEnv().stream().filter(e -> e.getName().equals(variable)).findFirst()
                .map(GatewayTokenWiringTest::secretName)
                .orElseThrow(() -> new AssertionError(container.getName() + " has no " + variable));
    }

    private static String secretName(EnvVar env) {
        return env.getValueFrom() == null || env.getValueFrom().getSecretKeyRef() == null
                ? null
                : env.getValueFrom().getSecretKeyRef().getName();
    }
}
