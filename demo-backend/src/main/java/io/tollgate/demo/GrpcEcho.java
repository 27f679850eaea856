package io.tollgate.demo;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import com.google.protobuf.Int32Value;
import com.google.protobuf.StringValue;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;

/**
 * The gRPC service {@code tollgate.demo.Echo} (demo/echo.proto), on the demo's own HTTP server (gRPC needs HTTP/2:
 * the gateway speaks to it in clear text, h2c), to try the gateway's gRPC relay. Its messages are protobuf's
 * well-known wrappers, so it needs no generated code:
 * <ul>
 * <li>{@code Say(google.protobuf.StringValue) returns (google.protobuf.StringValue)}: {@code "echo: "} and the
 * text; the header {@code demo-grpc-timeout} tells the deadline the call arrived with;</li>
 * <li>{@code Count(google.protobuf.Int32Value) returns (stream google.protobuf.StringValue)}: {@code "1"} to
 * {@code "n"} (n at most {@value #MAX_COUNT}), then the trailer {@code demo-count: n}.</li>
 * </ul>
 * Each call counts as a hit of its {@code x-api-key}, as any request does ({@code /__hits}).
 */
@ApplicationScoped
class GrpcEcho {

    static final ServiceName SERVICE = ServiceName.create("tollgate.demo.Echo");
    static final int MAX_COUNT = 10_000;

    private static final ServiceMethod<StringValue, StringValue> SAY = ServiceMethod.server(SERVICE, "Say",
            GrpcMessageEncoder.encoder(), GrpcMessageDecoder.decoder(StringValue.parser()));
    private static final ServiceMethod<Int32Value, StringValue> COUNT = ServiceMethod.server(SERVICE, "Count",
            GrpcMessageEncoder.encoder(), GrpcMessageDecoder.decoder(Int32Value.parser()));

    private final HitCounter hits;

    GrpcEcho(HitCounter hits) {
        this.hits = hits;
    }

    void register(@Observes Router router, Vertx vertx) {
        GrpcServer server = GrpcServer.server(vertx).callHandler(SAY, this::say).callHandler(COUNT, this::count);
        router.post().order(-2).handler(ctx -> {
            if (isGrpc(ctx)) {
                server.handle(ctx.request());
            } else {
                ctx.next();
            }
        });
    }

    private static boolean isGrpc(RoutingContext ctx) {
        String type = ctx.request().getHeader(HttpHeaders.CONTENT_TYPE);
        return type != null && type.startsWith("application/grpc");
    }

    private void say(GrpcServerRequest<StringValue, StringValue> call) {
        hits.record(call.headers().get("x-api-key"));
        String deadline = call.headers().get("grpc-timeout");
        call.handler(text -> {
            GrpcServerResponse<StringValue, StringValue> response = call.response();
            if (deadline != null) {
                response.headers().set("demo-grpc-timeout", deadline);
            }
            response.end(StringValue.of("echo: " + text.getValue()));
        });
    }

    private void count(GrpcServerRequest<Int32Value, StringValue> call) {
        hits.record(call.headers().get("x-api-key"));
        call.handler(n -> {
            GrpcServerResponse<Int32Value, StringValue> response = call.response();
            if (n.getValue() < 0 || n.getValue() > MAX_COUNT) {
                response.status(GrpcStatus.INVALID_ARGUMENT).statusMessage("n must be 0 to " + MAX_COUNT).end();
                return;
            }
            for (int i = 1; i <= n.getValue(); i++) {
                response.write(StringValue.of(Integer.toString(i)));
            }
            response.trailers().set("demo-count", Integer.toString(n.getValue()));
            response.end();
        });
    }
}
