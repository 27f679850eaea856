package io.tollgate.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.google.protobuf.Int32Value;
import com.google.protobuf.Message;
import com.google.protobuf.StringValue;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.tollgate.e2e.support.Fleet;
import io.tollgate.e2e.support.Rules;
import io.tollgate.e2e.support.Stack;
import io.tollgate.grpc.interop.InteropCase;
import io.tollgate.grpc.interop.InteropProtos;
import io.tollgate.rules.domain.DocBlocks;
import io.tollgate.rules.domain.DocBlocks.Block;

/**
 * gRPC through the packaged gateways to the demo backend's gRPC service ({@code tollgate.demo.Echo}, Vert.x gRPC),
 * with grpc-java clients: a rule on the service's path holds across the fleet as it does for REST (the calls past
 * the limit, wherever they land, report {@code RESOURCE_EXHAUSTED} with a retry hint the client reads, and never
 * reach the backend); a server-streaming call relays every message and the trailers; the call's deadline reaches
 * the backend. The gateways reach the service through a route given in the environment
 * ({@code TOLLGATE_GATEWAY_ROUTES_GRPC_URL=h2c://...}), as {@code ./tollgate up} gives it. The rule is the one
 * docs/protocols.md shows, and the page's curl loop prints what the page says it prints. grpc's interop cases, against
 * a grpc-java {@code grpc.testing.TestService} the gateways route to ({@link SharedStack}), end through the fleet as
 * they end direct.
 */
class GrpcAcrossGatewaysTest {

    private static final String SERVICE = "tollgate.demo.Echo";
    private static final MethodDescriptor<StringValue, StringValue> SAY = method("Say",
            MethodDescriptor.MethodType.UNARY, StringValue.getDefaultInstance());
    private static final MethodDescriptor<Int32Value, StringValue> COUNT = method("Count",
            MethodDescriptor.MethodType.SERVER_STREAMING, Int32Value.getDefaultInstance());
    private static final Metadata.Key<String> API_KEY = Metadata.Key.of("x-api-key",
            Metadata.ASCII_STRING_MARSHALLER);

    private static final Path PAGE = DocBlocks.root().resolve("docs/protocols.md");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper YAML = new YAMLMapper();

    private static Stack stack;
    private static final List<ManagedChannel> channels = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        stack = SharedStack.get();
        stack.putRule("echo.grpc", JSON.writeValueAsString(YAML.readTree(block("yaml", "id: echo.grpc").text())));
        stack.putRule("grpc.interop", Rules.perApiKey("grpc.interop", "/" + InteropProtos.SERVICE + "/**", 10_000,
                "1m", "open"));
        for (var gateway : stack.gateways()) {
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", gateway.port()).usePlaintext().build();
            channels.add(channel);
            await(gateway.name() + " applies echo.grpc and grpc.interop").atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> applies(channel, SAY, StringValue.of("probe"), "echo.grpc")
                            && applies(channel, InteropProtos.EMPTY_CALL, InteropProtos.message("Empty").build(),
                                    "grpc.interop"));
        }
    }

    /** Whether the gateway of {@code channel} applies the rule {@code id}: a fresh client's call names it. */
    private static <Q, A> boolean applies(ManagedChannel channel, MethodDescriptor<Q, A> method, Q request,
            String id) {
        AtomicReference<Metadata> headers = new AtomicReference<>();
        ClientCalls.blockingUnaryCall(withKey(channel, Fleet.freshKey("probe"), headers, null), method, deadline(),
                request);
        String policy = headers.get().get(Metadata.Key.of("ratelimit-policy", Metadata.ASCII_STRING_MARSHALLER));
        return policy != null && policy.contains("\"" + id + "\"");
    }

    @AfterAll
    static void stop() throws InterruptedException {
        for (ManagedChannel channel : channels) {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void theLimitHoldsAcrossTheFleetAndTheCallsPastItAreResourceExhausted() {
        String key = Fleet.freshKey("grpc");
        int allowed = 0;
        List<StatusRuntimeException> limited = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            try {
                StringValue answer = ClientCalls.blockingUnaryCall(withKey(channels.get(i % 3), key, null, null), SAY,
                        deadline(), StringValue.of("call " + i));
                assertThat(answer.getValue()).isEqualTo("echo: call " + i);
                allowed++;
            } catch (StatusRuntimeException e) {
                limited.add(e);
            }
        }

        assertThat(allowed).as("the rule's burst of 5, across three gateways").isEqualTo(5);
        assertThat(limited).hasSize(4).allSatisfy(e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(Long.parseLong(e.getTrailers().get(Metadata.Key.of("retry-after",
                    Metadata.ASCII_STRING_MARSHALLER)))).isBetween(1L, 60L);
        });
        assertThat(stack.backendHits(key)).as("no limited call reached the backend").isEqualTo(5);
    }

    @Test
    void aServerStreamingCallRelaysEveryMessageAndTheTrailersAndTheDeadlineReachesTheBackend() {
        String key = Fleet.freshKey("grpc-stream");
        AtomicReference<Metadata> trailers = new AtomicReference<>();
        List<String> got = new ArrayList<>();
        ClientCalls.blockingServerStreamingCall(withKey(channels.get(1), key, null, trailers), COUNT, deadline(),
                Int32Value.of(2_000)).forEachRemaining(m -> got.add(m.getValue()));

        assertThat(got).hasSize(2_000).startsWith("1").endsWith("2000");
        assertThat(trailers.get().get(Metadata.Key.of("demo-count", Metadata.ASCII_STRING_MARSHALLER)))
                .isEqualTo("2000");

        AtomicReference<Metadata> headers = new AtomicReference<>();
        ClientCalls.blockingUnaryCall(withKey(channels.get(2), key, headers, null), SAY, deadline(),
                StringValue.of("when?"));
        assertThat(headers.get().get(Metadata.Key.of("demo-grpc-timeout", Metadata.ASCII_STRING_MARSHALLER)))
                .as("grpc-timeout passed on to the backend").isNotNull();
        assertThat(headers.get().get(Metadata.Key.of("ratelimit-policy", Metadata.ASCII_STRING_MARSHALLER)))
                .isEqualTo("\"echo.grpc\";q=5;w=60");
    }

    /**
     * grpc's interop cases (and the 4 MB, 10,000-message, compression, metadata and status cases beside them,
     * {@link InteropCase}), with grpc-java on both sides: each ends through a packaged gateway, under a rule on the
     * service, as it ends direct. The cases take turns on the three gateways.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(InteropCase.class)
    void grpcsInteropCaseEndsThroughTheFleetAsItEndsDirect(InteropCase interop) throws Exception {
        ManagedChannel direct = NettyChannelBuilder.forAddress("127.0.0.1", SharedStack.interopPort()).usePlaintext()
                .build();
        try {
            assertThat(interop.run(direct)).as("direct").isEqualTo(interop.expected);
            int gateway = interop.ordinal() % channels.size();
            assertThat(interop.run(withKey(channels.get(gateway), Fleet.freshKey("interop"), null, null)))
                    .as("through " + stack.gateways().get(gateway).name()).isEqualTo(interop.expected);
        } finally {
            direct.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void theDocumentedCurlLoopPrintsWhatThePageShows() throws Exception {
        Block loop = block("sh", "tollgate.demo.Echo/Say | grep");
        List<Block> blocks = DocBlocks.of(PAGE);
        Block shown = blocks.get(blocks.indexOf(loop) + 1);
        String script = loop.text().replace("127.0.0.1:8080", "127.0.0.1:" + stack.gateways().get(0).port())
                .replace("ak_grpc", Fleet.freshKey("docs"));

        Process bash = new ProcessBuilder("bash", "-e", "-o", "pipefail", "-c", script).redirectErrorStream(true)
                .start();
        String output = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(bash.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(bash.exitValue()).as(output).isZero();

        List<String> got = output.lines().map(String::strip).toList();
        List<String> page = shown.text().lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        assertThat(got).as("as many lines as the page shows").hasSameSizeAs(page);
        for (int i = 0; i < page.size(); i++) {
            // the seconds (t=, retry-after) depend on when the bucket was made; the rest is the page's
            assertThat(got.get(i).replaceAll("\\d+$|t=\\d+", "N")).as(output)
                    .isEqualTo(page.get(i).replaceAll("\\d+$|t=\\d+", "N"));
        }
        assertThat(got.get(got.size() - 1)).isEqualTo("grpc-status: 8");
    }

    /** The first block of docs/protocols.md in {@code language} that holds {@code text}. */
    private static Block block(String language, String text) {
        return DocBlocks.of(PAGE).stream().filter(b -> b.language().equals(language) && !b.notRun()
                && b.text().contains(text)).findFirst().orElseThrow(() -> new AssertionError(
                        "docs/protocols.md has no " + language + " block with " + text));
    }

    private static CallOptions deadline() {
        return CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
    }

    private static Channel withKey(ManagedChannel channel, String key, AtomicReference<Metadata> headers,
            AtomicReference<Metadata> trailers) {
        Metadata metadata = new Metadata();
        metadata.put(API_KEY, key);
        return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(metadata),
                MetadataUtils.newCaptureMetadataInterceptor(headers == null ? new AtomicReference<>() : headers,
                        trailers == null ? new AtomicReference<>() : trailers));
    }

    private static <Q extends Message> MethodDescriptor<Q, StringValue> method(String name,
            MethodDescriptor.MethodType type, Q request) {
        return MethodDescriptor.<Q, StringValue>newBuilder().setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
                .setRequestMarshaller(ProtoUtils.marshaller(request))
                .setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance())).build();
    }
}
