package io.tollgate.gateway.usage;

import java.util.List;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;

/** The whole number in a response header; the body plays no part. */
final class HeaderMeter implements UsageMeter {

    private final String name;
    private Usage usage = Usage.ABSENT;
    private boolean headCame;

    HeaderMeter(String name) {
        this.name = name;
    }

    @Override
    public void head(int status, MultiMap headers) {
        headCame = true;
        List<String> values = headers.getAll(name);
        if (values.size() > 1) {
            usage = new Usage.Invalid(String.join(", ", values), "the header appears more than once");
        } else if (values.size() == 1) {
            usage = WholeNumbers.read(values.get(0).strip());
        }
    }

    @Override
    public void body(Buffer chunk) {
    }

    @Override
    public Usage end() {
        return usage;
    }

    /** The header comes with the head: the body cannot change it. */
    @Override
    public boolean known() {
        return headCame;
    }

    /** The header came with the head: what it says stands however the body ends. */
    @Override
    public Usage cut() {
        return usage;
    }
}
