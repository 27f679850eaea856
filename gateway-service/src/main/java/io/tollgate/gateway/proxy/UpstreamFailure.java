package io.tollgate.gateway.proxy;

/**
 * The backend could not be reached (502), did not answer in time (504) or refused a WebSocket handshake (its
 * status), before any byte of the answer was sent, so the gateway can still answer with a problem.
 */
public final class UpstreamFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;

    UpstreamFailure(int status, String detail, Throwable cause) {
        super(detail, cause, false, false);
        this.status = status;
    }

    /** 502, 504, or the status with which the upstream refused a WebSocket handshake. */
    public int status() {
        return status;
    }
}
