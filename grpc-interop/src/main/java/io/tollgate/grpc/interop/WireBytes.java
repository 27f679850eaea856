package io.tollgate.grpc.interop;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.grpc.ClientStreamTracer;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerStreamTracer;

/**
 * The bytes of one call's messages on the wire, as grpc-java frames and reads them (compressed when they are), counted
 * at both ends: whether a call's messages crossed as they were sent, each way. A call that carries {@link #KEY} is told
 * the server's counts in its trailers, under the same key ({@code "<read> <written>"}); the client compares them with
 * its own ({@link #crossing}).
 */
final class WireBytes {

    static final Metadata.Key<String> KEY = Metadata.Key.of("x-tollgate-interop-wire",
            Metadata.ASCII_STRING_MARSHALLER);

    private WireBytes() {
    }

    /** The client's counts, of the bytes on the wire and of their content. A retried call counts its last attempt. */
    static final class AtClient extends ClientStreamTracer.Factory {

        private final AtomicLong written = new AtomicLong();
        private final AtomicLong writtenContent = new AtomicLong();
        private final AtomicLong read = new AtomicLong();
        private final AtomicLong readContent = new AtomicLong();

        @Override
        public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
            for (AtomicLong count : List.of(written, writtenContent, read, readContent)) {
                count.set(0);
            }
            return new ClientStreamTracer() {

                @Override
                public void outboundWireSize(long bytes) {
                    written.addAndGet(bytes);
                }

                @Override
                public void outboundUncompressedSize(long bytes) {
                    writtenContent.addAndGet(bytes);
                }

                @Override
                public void inboundWireSize(long bytes) {
                    read.addAndGet(bytes);
                }

                @Override
                public void inboundUncompressedSize(long bytes) {
                    readContent.addAndGet(bytes);
                }
            };
        }

        /**
         * How the call's messages crossed, once it ended with the server's counts ({@code server}, null when it sent
         * none): {@code "requests <coding>, answers <coding>, as sent"}, a coding being {@code gzip} when the messages
         * took fewer bytes on the wire than their content, else {@code identity}; "as sent" when the server read as
         * many bytes as the client wrote and the client as many as the server wrote, else the four counts.
         */
        String crossing(String server) {
            String[] counts = server == null ? new String[]{"-1", "-1"} : server.split(" ");
            long serverRead = Long.parseLong(counts[0]);
            long serverWrote = Long.parseLong(counts[1]);
            String codings = "requests " + coding(written.get(), writtenContent.get()) + ", answers "
                    + coding(read.get(), readContent.get()) + ", ";
            return codings + (serverRead == written.get() && serverWrote == read.get()
                    ? InteropCall.AS_SENT
                    : "not as sent: the client wrote " + written + " bytes, the server read " + serverRead
                            + "; the server wrote " + serverWrote + ", the client read " + read);
        }

        private static String coding(long onTheWire, long content) {
            return onTheWire < content ? "gzip" : "identity";
        }
    }

    /** The server's counts of one call, found in the call's {@link Context} ({@link #current()}). */
    static final class AtServer extends ServerStreamTracer {

        /** Counts each call of a server. */
        static final ServerStreamTracer.Factory FACTORY = new ServerStreamTracer.Factory() {

            @Override
            public ServerStreamTracer newServerStreamTracer(String method, Metadata headers) {
                return new AtServer();
            }
        };
        private static final Context.Key<AtServer> CURRENT = Context.key("wire-bytes");

        private final AtomicLong read = new AtomicLong();
        private final AtomicLong written = new AtomicLong();

        /** The counts of the call whose context this runs in. */
        static AtServer current() {
            return CURRENT.get();
        }

        @Override
        public Context filterContext(Context context) {
            return context.withValue(CURRENT, this);
        }

        @Override
        public void inboundWireSize(long bytes) {
            read.addAndGet(bytes);
        }

        @Override
        public void outboundWireSize(long bytes) {
            written.addAndGet(bytes);
        }

        /** The counts as the trailer {@link #KEY} carries them. */
        String counts() {
            return read.get() + " " + written.get();
        }
    }
}
