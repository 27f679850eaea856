package io.tollgate.grpc.interop;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.DynamicMessage;

import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.protobuf.ProtoUtils;

/**
 * The messages and methods of grpc's interop service, {@code grpc.testing.TestService} (grpc's
 * {@code src/proto/grpc/testing/{test,messages,empty}.proto}), as far as the interop cases the tests run use them
 * (the compression cases' {@code BoolValue} flags included):
 * the same package, names and field numbers, so a call is on the wire what an interop client sends. Built at run time
 * as protobuf descriptors and {@link DynamicMessage}s, as the tests need no generated code (no published artifact
 * holds {@code TestService}'s).
 */
public final class InteropProtos {

    public static final String SERVICE = "grpc.testing.TestService";
    private static final Map<Integer, DynamicMessage> PAYLOADS = new ConcurrentHashMap<>();
    private static final Descriptors.FileDescriptor FILE = file();

    public static final MethodDescriptor<DynamicMessage, DynamicMessage> EMPTY_CALL = method(SERVICE, "EmptyCall",
            MethodType.UNARY, "Empty", "Empty");
    public static final MethodDescriptor<DynamicMessage, DynamicMessage> UNARY_CALL = method(SERVICE, "UnaryCall",
            MethodType.UNARY, "SimpleRequest", "SimpleResponse");
    public static final MethodDescriptor<DynamicMessage, DynamicMessage> STREAMING_OUTPUT_CALL = method(SERVICE,
            "StreamingOutputCall", MethodType.SERVER_STREAMING, "StreamingOutputCallRequest",
            "StreamingOutputCallResponse");
    public static final MethodDescriptor<DynamicMessage, DynamicMessage> STREAMING_INPUT_CALL = method(SERVICE,
            "StreamingInputCall", MethodType.CLIENT_STREAMING, "StreamingInputCallRequest",
            "StreamingInputCallResponse");
    public static final MethodDescriptor<DynamicMessage, DynamicMessage> FULL_DUPLEX_CALL = method(SERVICE,
            "FullDuplexCall", MethodType.BIDI_STREAMING, "StreamingOutputCallRequest", "StreamingOutputCallResponse");
    /** Declared by the service, implemented by no server. */
    public static final MethodDescriptor<DynamicMessage, DynamicMessage> UNIMPLEMENTED_CALL = method(SERVICE,
            "UnimplementedCall", MethodType.UNARY, "Empty", "Empty");
    /** {@code grpc.testing.UnimplementedService}, which no server serves. */
    public static final MethodDescriptor<DynamicMessage, DynamicMessage> UNIMPLEMENTED_SERVICE_CALL = method(
            "grpc.testing.UnimplementedService", "UnimplementedCall", MethodType.UNARY, "Empty", "Empty");

    private InteropProtos() {
    }

    /** A new message of the type {@code name} ({@code SimpleRequest}, ...). */
    public static DynamicMessage.Builder message(String name) {
        return DynamicMessage.newBuilder(FILE.findMessageTypeByName(name));
    }

    /**
     * {@code Payload { body: size bytes of zeros }}. Built once for each size (messages are immutable): a server
     * answering a 4 MB call spends no time making its 4 MB again before its answer's head, which the gateway under
     * test waits for no longer than its {@code upstream-timeout}.
     */
    public static DynamicMessage payload(int size) {
        return PAYLOADS.computeIfAbsent(size,
                s -> set(message("Payload"), "body", ByteString.copyFrom(new byte[s])).build());
    }

    /** {@code BoolValue { value }}: the interop messages' nullable flags ({@code expect_compressed}, ...). */
    public static DynamicMessage bool(boolean value) {
        return set(message("BoolValue"), "value", value).build();
    }

    /** {@code EchoStatus { code, message }}. */
    public static DynamicMessage echoStatus(int code, String text) {
        return set(set(message("EchoStatus"), "code", code), "message", text).build();
    }

    /** {@code ResponseParameters { size }} for each of {@code sizes}, into a {@code StreamingOutputCallRequest}. */
    public static DynamicMessage.Builder responseParameters(DynamicMessage.Builder request, List<Integer> sizes) {
        for (int size : sizes) {
            responseParameters(request, size, null);
        }
        return request;
    }

    /** One {@code ResponseParameters { size, compressed }} into a {@code StreamingOutputCallRequest}. */
    public static DynamicMessage.Builder responseParameters(DynamicMessage.Builder request, int size,
            Boolean compressed) {
        DynamicMessage.Builder parameters = set(message("ResponseParameters"), "size", size);
        if (compressed != null) {
            set(parameters, "compressed", bool(compressed));
        }
        return request.addRepeatedField(request.getDescriptorForType().findFieldByName("response_parameters"),
                parameters.build());
    }

    /** Sets the field {@code name} of {@code builder}. */
    public static DynamicMessage.Builder set(DynamicMessage.Builder builder, String name, Object value) {
        return builder.setField(builder.getDescriptorForType().findFieldByName(name), value);
    }

    /** The field {@code name} of {@code message}, its default when unset. */
    public static Object get(DynamicMessage message, String name) {
        return message.getField(message.getDescriptorForType().findFieldByName(name));
    }

    /** Whether {@code message} has the message field {@code name} set. */
    public static boolean has(DynamicMessage message, String name) {
        return message.hasField(message.getDescriptorForType().findFieldByName(name));
    }

    /** The value of the {@code BoolValue} field {@code name} of {@code message}: false when unset. */
    public static boolean flag(DynamicMessage message, String name) {
        return has(message, name) && (Boolean) get((DynamicMessage) get(message, name), "value");
    }

    /** The size of the body of the {@code Payload} in the field {@code payload} of {@code message}. */
    public static int payloadSize(DynamicMessage message) {
        return ((ByteString) get((DynamicMessage) get(message, "payload"), "body")).size();
    }

    private static MethodDescriptor<DynamicMessage, DynamicMessage> method(String service, String name,
            MethodType type, String request, String answer) {
        return MethodDescriptor.<DynamicMessage, DynamicMessage>newBuilder()
                .setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(service, name))
                .setRequestMarshaller(ProtoUtils.marshaller(message(request).build()))
                .setResponseMarshaller(ProtoUtils.marshaller(message(answer).build()))
                .build();
    }

    private static Descriptors.FileDescriptor file() {
        FileDescriptorProto proto = FileDescriptorProto.newBuilder()
                .setName("grpc/testing/interop.proto")
                .setPackage("grpc.testing")
                .setSyntax("proto3")
                .addMessageType(type("Empty"))
                .addMessageType(type("BoolValue", scalar("value", 1, FieldDescriptorProto.Type.TYPE_BOOL)))
                .addMessageType(type("Payload", scalar("body", 2, FieldDescriptorProto.Type.TYPE_BYTES)))
                .addMessageType(type("EchoStatus", scalar("code", 1, FieldDescriptorProto.Type.TYPE_INT32),
                        scalar("message", 2, FieldDescriptorProto.Type.TYPE_STRING)))
                .addMessageType(type("SimpleRequest",
                        scalar("response_size", 2, FieldDescriptorProto.Type.TYPE_INT32),
                        nested("payload", 3, "Payload"), nested("response_compressed", 6, "BoolValue"),
                        nested("response_status", 7, "EchoStatus"), nested("expect_compressed", 8, "BoolValue")))
                .addMessageType(type("SimpleResponse", nested("payload", 1, "Payload")))
                .addMessageType(type("StreamingInputCallRequest", nested("payload", 1, "Payload"),
                        nested("expect_compressed", 2, "BoolValue")))
                .addMessageType(type("StreamingInputCallResponse",
                        scalar("aggregated_payload_size", 1, FieldDescriptorProto.Type.TYPE_INT32)))
                .addMessageType(type("ResponseParameters", scalar("size", 1, FieldDescriptorProto.Type.TYPE_INT32),
                        scalar("interval_us", 2, FieldDescriptorProto.Type.TYPE_INT32),
                        nested("compressed", 3, "BoolValue")))
                .addMessageType(type("StreamingOutputCallRequest",
                        nested("response_parameters", 2, "ResponseParameters").toBuilder()
                                .setLabel(FieldDescriptorProto.Label.LABEL_REPEATED).build(),
                        nested("payload", 3, "Payload"), nested("response_status", 7, "EchoStatus")))
                .addMessageType(type("StreamingOutputCallResponse", nested("payload", 1, "Payload")))
                .build();
        try {
            return Descriptors.FileDescriptor.buildFrom(proto, new Descriptors.FileDescriptor[0]);
        } catch (DescriptorValidationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static DescriptorProto type(String name, FieldDescriptorProto... fields) {
        return DescriptorProto.newBuilder().setName(name).addAllField(List.of(fields)).build();
    }

    private static FieldDescriptorProto scalar(String name, int number, FieldDescriptorProto.Type type) {
        return FieldDescriptorProto.newBuilder().setName(name).setNumber(number).setType(type)
                .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL).build();
    }

    private static FieldDescriptorProto nested(String name, int number, String type) {
        return FieldDescriptorProto.newBuilder().setName(name).setNumber(number)
                .setType(FieldDescriptorProto.Type.TYPE_MESSAGE).setTypeName(".grpc.testing." + type)
                .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL).build();
    }
}
