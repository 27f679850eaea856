package io.tollgate.gateway.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tollgate.gateway.support.GatewayControl;
import io.tollgate.gateway.support.GatewayResource;
import io.tollgate.gateway.support.RawHttp;
import io.tollgate.rules.domain.PathSpellings;
import io.tollgate.rules.domain.Scope;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Route;

/**
 * Every route of the running management interface (read from its router, not from a list of this test's) is an
 * operation that declares its scope or Quarkus's health and metrics, and every caller of an operation gets what the
 * declaration says, however the path is spelled: no token 401, a wrong token 403 (429 once its address spent its
 * allowance), a gateway token and a scope too weak 403, a scope that covers the call through the door (the calls
 * name no rule in force, so nothing is reset). No respelling ({@code ;x} in a segment, {@code //}, dot segments,
 * escaped letters, case, a trailing slash) opens a door to a caller the declaration keeps out.
 */
@QuarkusTest
@WithTestResource(value = GatewayResource.class, initArgs = @ResourceArg(name = "grpc", value = "true"))
class EveryOperationTest {

    private static final String QUERY = "?rule=no.such.rule&path=/x";
    /** Wrong tokens come from addresses of their own, 9 from each: the tests' allowance is 10 per address. */
    private static final AtomicInteger WRONG = new AtomicInteger();

    record Operation(String method, String path, Scope scope) {
    }

    @Test
    void everyOperationDeclaresItsScopeAndEveryCallerGetsWhatItSays() throws IOException {
        List<Operation> operations = new ArrayList<>();
        List<String> undeclared = new ArrayList<>();
        for (Route route : OperationsSeen.router().getRoutes()) {
            Scope scope = route.getMetadata(AdminGuard.SCOPE);
            if (scope != null) {
                route.methods().forEach(m -> operations.add(new Operation(m.name(), route.getPath(), scope)));
            } else if (route.getPath() != null && !route.getPath().startsWith("/q/")) {
                undeclared.add(route.getPath());
            }
        }
        assertThat(undeclared).as("routes that are neither an operation nor Quarkus's health and metrics").isEmpty();
        assertThat(operations).extracting(Operation::path)
                .contains("/tollgate/explain", "/tollgate/top", "/tollgate/buckets");

        List<String> wrong = new ArrayList<>();
        for (Operation operation : operations) {
            for (Map.Entry<String, String> caller : callers().entrySet()) {
                check(operation, operation.path(), caller, wrong, false);
                for (String spelling : PathSpellings.of(operation.path())) {
                    check(operation, spelling, caller, wrong, true);
                }
            }
        }
        assertThat(wrong).as("answers that do not match the declared scope").isEmpty();
    }

    @Test
    void everyOperationRefusesAClientKeyInItsQuery() throws IOException {
        Map<String, String> spellings = Map.of("?rule=no.such.rule&path=/x&api_key=ak-in-url", "api_key",
                "?rule=no.such.rule&header.X-Tenant=ak-in-url", "header.X-Tenant",
                "?api%5Fkey=ak-in-url", "api_key");
        List<String> wrong = new ArrayList<>();
        for (Route route : OperationsSeen.router().getRoutes()) {
            if (route.getMetadata(AdminGuard.SCOPE) == null) {
                continue;
            }
            for (HttpMethod method : route.methods()) {
                for (Map.Entry<String, String> spelling : spellings.entrySet()) {
                    RawHttp.Answer answer = RawHttp.exchange("127.0.0.1", GatewayControl.managementPort(), method.name(),
                            route.getPath() + spelling.getKey(), List.of("Authorization: " + GatewayControl.ADMIN));
                    if (answer.status() != 400 || !answer.body().contains("\"type\":\"key-in-url\"")
                            || !answer.body().contains("\"field\":\"" + spelling.getValue() + "\"")
                            || answer.body().contains("ak-in-url")) {
                        wrong.add(method + " " + route.getPath() + spelling.getKey() + ": " + answer.status() + " "
                                + answer.body());
                    }
                }
            }
        }
        assertThat(wrong).as("operations that took a key in the query, or repeated it").isEmpty();
    }

    private static void check(Operation operation, String path, Map.Entry<String, String> caller, List<String> wrong,
            boolean respelled) throws IOException {
        String from = "127.0.0.1";
        if (caller.getKey().equals("wrong token")) {
            from = "127.0.1." + (1 + WRONG.getAndIncrement() / 9);
        }
        List<String> headers = caller.getValue() == null ? List.of() : List.of("Authorization: " + caller.getValue());
        RawHttp.Answer answer = RawHttp.exchange(from, GatewayControl.managementPort(), operation.method(),
                path + QUERY, headers);
        String expected = respelled
                ? respelledExpected(operation, caller.getKey(), answer.status())
                : expected(operation, caller.getKey(), answer);
        if (expected != null) {
            wrong.add(operation.method() + " " + path + " as " + caller.getKey() + ": " + answer.status() + " "
                    + answer.body() + ", expected " + expected);
        }
    }

    private static String expected(Operation operation, String caller, RawHttp.Answer answer) {
        int status = answer.status();
        if (status >= 500 && status != 503) {
            return "no server error";
        }
        return switch (caller) {
            case "no token" -> status == 401 ? null : "401";
            case "wrong token" -> status == 403 || status == 429 ? null : "403 or 429";
            default -> {
                if (covers(operation, caller)) {
                    yield status == 401 || status == 403 || status == 429 ? "the door open" : null;
                }
                yield status == 403 && answer.body().contains("\"insufficient-scope\"")
                        ? null
                        : "403 insufficient-scope";
            }
        };
    }

    private static String respelledExpected(Operation operation, String caller, int status) {
        if (status >= 500 && status != 503) {
            return "no server error";
        }
        boolean mayEnter = !caller.equals("no token") && !caller.equals("wrong token") && covers(operation, caller);
        return mayEnter || List.of(400, 401, 403, 404, 405, 429).contains(status)
                ? null
                : "a shut door (400, 401, 403, 404, 405, 429)";
    }

    private static boolean covers(Operation operation, String caller) {
        Scope scope = Scope.valueOf(caller.toUpperCase(Locale.ROOT));
        return AdminGuard.covers(scope, AdminGuard.needed(operation.scope(), HttpMethod.valueOf(operation.method())));
    }

    private static Map<String, String> callers() {
        Map<String, String> callers = new LinkedHashMap<>();
        callers.put("no token", null);
        callers.put("wrong token", "Bearer not-one-of-the-tokens");
        callers.put("gateway", GatewayControl.GATEWAY_SCOPE);
        callers.put("read", GatewayControl.READ);
        callers.put("admin", GatewayControl.ADMIN);
        return callers;
    }
}
