// loopback: preloaded (node --import ./loopback.mjs) into a server a
// scenario starts, so that its listen on a port alone binds 127.0.0.1,
// never every interface (server-everything's streamableHttp listens on
// $PORT with no host), and says the port it got on stderr as
// "loopback listening on PORT" (for PORT=0: a free one).
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  if (typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port))) {
    args[0] = Number(port);
    if (typeof args[1] === "string") args[1] = "127.0.0.1";
    else args.splice(1, 0, "127.0.0.1");
  } else if (port && typeof port === "object" && "port" in port) {
    args[0] = { ...port, host: "127.0.0.1" };
  }
  this.once("listening", () => {
    const a = this.address();
    if (a && typeof a === "object") process.stderr.write(`loopback listening on ${a.port}\n`);
  });
  return listen.apply(this, args);
};
