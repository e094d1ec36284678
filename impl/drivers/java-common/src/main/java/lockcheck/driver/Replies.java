package lockcheck.driver;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** The replies of protocol 1: ok, fail and error (the request's "id" is added by {@link Protocol}). */
public final class Replies {
    private Replies() {
    }

    /** {"status":"ok"}: the request took effect (a grant, a release, ...). */
    public static ObjectNode ok() {
        return status("ok");
    }

    /** {"status":"fail"}: the library refused, with no effect (held by another, not held). */
    public static ObjectNode fail() {
        return status("fail");
    }

    /**
     * {"status":"error","error":msg}: the outcome is unknown, unless
     * redisError ("redis_error":true) says Redis answered with an error
     * reply, so the command did not take effect.
     */
    public static ObjectNode error(String msg, boolean redisError) {
        ObjectNode n = status("error");
        n.put("error", msg);
        if (redisError) {
            n.put("redis_error", true);
        }
        return n;
    }

    private static ObjectNode status(String s) {
        ObjectNode n = Protocol.JSON.createObjectNode();
        n.put("status", s);
        return n;
    }
}
