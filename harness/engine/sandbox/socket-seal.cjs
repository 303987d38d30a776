'use strict';
/**
 * The seal's socket layer: where this thread's code meets the operating system's network.
 *
 * MSW (seal.ts) answers `fetch`, `node:http(s)` and XHR before any socket exists, which is what
 * serves the tools. It does not see code that kept a reference from before it was listening (a
 * saved `fetch`, `const { request } = http` at module top), nor `net`, `tls`, `http2`, `dgram`,
 * DNS, worker threads or Node's internal handles. This layer closes those where they reach the OS:
 *
 * - `net.Socket.prototype.connect` (every TCP/TLS/IPC connection: net, tls, http, https, http2,
 *   undici's fetch and WebSocket), checked by host and port; a host name is resolved by the seal's
 *   own lookup (the real `dns.lookup`, captured before anything could change it), which notes the
 *   addresses it gave, and a caller's own `lookup` option still runs but must land on one of them;
 * - the TCP, pipe and UDP handles' `connect`/`send` (the calls the above end in, so code that
 *   reaches past `net` or `dgram` is stopped too), allowed only for sockets approved above and only
 *   to an address and port the seal allowed (an allowed address literal, or an address its own
 *   lookup gave for an allowed host): what a socket actually connects to is checked, not its name;
 * - in a sealed process (`sealProcess`), the handles' `bind` and `listen` (TCP and HTTP servers,
 *   Unix sockets, UDP sockets, a client's `localPort`): a planner's process serves nothing;
 * - `dns` and `dns/promises` (lookup, lookupService, every resolve*, reverse, and `Resolver`), and
 *   a resolver's own c-ares handle; a reverse lookup goes out only for an allowed host;
 * - `process.binding` of the network bindings (the way around all of the above);
 * - `worker_threads.Worker`: a worker started while the seal is on gets this module preloaded
 *   (`--require`) before any of its own code, with the same allowed origins, reporting its
 *   escapes back to the thread that started it (in the context that started it).
 *
 * Allowed: exactly the origins given to `allow` (the model endpoint, a harness-owned loopback
 * endpoint), by host and port. Everything else is refused as a failed connection and reported.
 *
 * Plain CommonJS, so a worker can preload it with `--require` before any loader (tsx) or user
 * code runs; one instance per thread (kept on the thread's global). A sealed process (a planner
 * file's: runner/sealed-process.ts) gets it through child-seal.cjs, which calls `sealProcess`: there
 * `process.binding` is refused (the permission model), so the handle prototypes are learnt from
 * handles made for the purpose.
 */
const net = require('node:net');
const dns = require('node:dns');
const wt = require('node:worker_threads');
const { AsyncResource } = require('node:async_hooks');
const { syncBuiltinESMExports } = require('node:module');
const os = require('node:os');
const path = require('node:path');

const STATE = Symbol.for('oneway.socket-seal');
/** The key under which a sealed worker's workerData carries its configuration. */
const WORKER_KEY = '__oneway_socket_seal__';
const NET_BINDINGS = new Set([
  'tcp_wrap',
  'udp_wrap',
  'pipe_wrap',
  'cares_wrap',
  'tls_wrap',
  'stream_wrap',
  'js_stream',
]);
const UV_EACCES = -13;
/** The real `dns.lookup`, before this layer (or any module) patched it: how the seal resolves an allowed host. */
const realLookup = dns.lookup;
/**
 * The one local socket the harness's own plumbing opens: tsx's loader tells the `tsx` command that
 * started this process which files it loads (for watch mode), over a pipe in its temp directory.
 */
const TSX_PIPE = path.join(
  os.tmpdir(),
  `tsx-${process.geteuid ? process.geteuid() : os.userInfo().username}`,
  `${process.ppid}.pipe`,
);

function create() {
  let armed = 0;
  let locked = false;
  let installed = false;
  /** host -> ports allowed on it */
  const allowed = new Map();
  /**
   * Sockets whose connection passed the host check: their handle may connect only to an allowed
   * address (`addresses`).
   */
  const approved = new WeakSet();
  /** Sockets whose connection started while the seal was off: not checked. */
  const unchecked = new WeakSet();
  /**
   * address -> ports a socket may connect to: allowed address literals, and the addresses the seal's
   * own lookup gave for an allowed host (with that host's ports).
   */
  const addresses = new Map();
  /** Whether binding and listening are refused (a sealed process: it serves nothing). */
  let noListen = false;
  let reporter = null;
  const pending = [];
  /** Attempts refused or passed on by this thread so far. */
  let reported = 0;
  /** Whether tsx's pipe is let through (not in a sealed process, which has no tsx). */
  let tsxPipe = true;

  const on = () => armed > 0 || locked;

  function normHost(host) {
    let h = String(host ?? 'localhost').toLowerCase();
    if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
    if (h.endsWith('.')) h = h.slice(0, -1);
    return h;
  }
  function hostAllowed(host) {
    return allowed.has(normHost(host));
  }
  function hostPortAllowed(host, port) {
    const ports = allowed.get(normHost(host));
    return ports !== undefined && ports.has(Number(port));
  }
  /** An address as a handle gets it, comparable: lower case, an IPv4-mapped IPv6 address as IPv4. */
  function normAddress(a) {
    const h = normHost(a);
    const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    return m ? m[1] : h;
  }
  /** Notes that `address` is where the allowed host `host` is (its ports are the host's). */
  function addAddress(address, host) {
    const a = normAddress(address);
    let hosts = addresses.get(a);
    if (!hosts) addresses.set(a, (hosts = new Set()));
    hosts.add(normHost(host));
  }
  function addressAllowed(address, port) {
    const hosts = addresses.get(normAddress(address));
    if (!hosts) return false;
    for (const h of hosts) if (hostPortAllowed(h, port)) return true;
    return false;
  }
  /** Notes what the seal's own lookup gave for an allowed host (one address, or `all`'s list). */
  function noteLookup(host, result) {
    if (!hostAllowed(host)) return;
    for (const r of Array.isArray(result) ? result : [{ address: result }])
      if (r && typeof r.address === 'string') addAddress(r.address, host);
  }
  /**
   * The `lookup` a connection to an allowed host name is made with: the real one, whose answers are
   * noted as the addresses that host may be reached at. A caller's own `lookup` (`theirs`) still
   * answers, after the real one has: whatever it maps the name to must be one of those addresses, or
   * the handle refuses the connection (and it is counted).
   */
  function sealedLookup(host, theirs) {
    return function lookup(hostname, options, callback) {
      const cb = typeof options === 'function' ? options : callback;
      const opts = options !== null && typeof options === 'object' ? options : {};
      const real = (o, done) =>
        Reflect.apply(realLookup, dns, [
          host,
          o,
          (err, address, family) => {
            if (!err) noteLookup(host, address);
            done(err, address, family);
          },
        ]);
      if (typeof theirs !== 'function') return real(opts, cb);
      real({ ...opts, all: true }, () => Reflect.apply(theirs, this, [hostname, options, callback]));
    };
  }
  function showHost(host) {
    const h = normHost(host);
    return h.includes(':') ? `[${h}]` : h;
  }

  function report(e) {
    reported++;
    if (reporter) {
      try {
        reporter(e);
      } catch {
        /* a reporter must never break the refusal */
      }
    } else if (pending.length < 10_000) pending.push(e);
  }

  function refusal(code, message) {
    return Object.assign(new Error(`${message} (oneway seal: the sandbox allows no network here)`), {
      code,
      oneway_seal: true,
    });
  }

  // --- net: connect by host and port --------------------------------------------------------
  /** Where a `socket.connect(...)` call goes, from any of its call shapes. */
  function connectTarget(args) {
    let a = args[0];
    if (Array.isArray(a)) a = a[0]; // net.connect passes its normalised [options, cb]
    if (a !== null && typeof a === 'object') {
      if (a.path !== undefined && a.path !== null) return { path: String(a.path) };
      return { host: a.host ?? 'localhost', port: a.port };
    }
    if (typeof a === 'string' && a !== '' && !/^\d+$/.test(a)) return { path: a };
    return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: a };
  }

  function installNet() {
    const connect = net.Socket.prototype.connect;
    net.Socket.prototype.connect = function connectSealed(...args) {
      if (on()) {
        const t = connectTarget(args);
        const ok = t.path === undefined ? hostPortAllowed(t.host, t.port) : tsxPipe && t.path === TSX_PIPE;
        if (!ok) {
          const url = t.path !== undefined ? `unix:${t.path}` : `tcp://${showHost(t.host)}:${t.port}`;
          report({ method: 'CONNECT', url, reason: 'network connection outside the sandbox (socket layer)' });
          const err = refusal('ECONNREFUSED', `connect ECONNREFUSED ${t.path ?? `${t.host}:${t.port}`}`);
          // As a connection that is under way (http2 and tls wait for it), then fails.
          this.connecting = true;
          process.nextTick(() => this.destroy(err));
          return this;
        }
        approved.add(this);
        if (t.path === undefined) return connect.apply(this, sealedArgs(args, t));
        return connect.apply(this, args);
      }
      unchecked.add(this);
      return connect.apply(this, args);
    };
  }
  /**
   * A TCP connect call's arguments with options of the seal's own: the host and port checked (read
   * once), and for a host name the seal's `lookup` (see sealedLookup); the caller's other options
   * are read through them.
   */
  function sealedArgs(args, t) {
    const nested = Array.isArray(args[0]);
    const a = nested ? args[0][0] : args[0];
    const sealed = Object.create(a !== null && typeof a === 'object' ? a : Object.prototype);
    sealed.host = t.host;
    sealed.port = t.port;
    if (net.isIP(normHost(t.host)) === 0) sealed.lookup = sealedLookup(t.host, a?.lookup);
    if (nested) {
      // net.connect's normalised [options, cb], marked as such by a symbol of Node's: kept.
      const copy = [...args[0]];
      for (const k of Object.getOwnPropertySymbols(args[0])) copy[k] = args[0][k];
      copy[0] = sealed;
      return [copy, ...args.slice(1)];
    }
    if (a !== null && typeof a === 'object') return [sealed, ...args.slice(1)];
    // (port, host, cb): the callback stays.
    const cb = args.find((x) => typeof x === 'function');
    return cb ? [sealed, cb] : [sealed];
  }

  // --- the handles: what net and dgram end in ------------------------------------------------
  function ownerOf(handle) {
    try {
      const sym = Object.getOwnPropertySymbols(handle).find((s) => s.description === 'owner_symbol');
      return sym ? handle[sym] : undefined;
    } catch {
      return undefined;
    }
  }
  function binding(name) {
    try {
      // The deprecation warning is only for some bindings; these load silently.
      return process.binding(name);
    } catch {
      return undefined;
    }
  }
  function wrapMethod(proto, name, check) {
    const orig = proto && proto[name];
    if (typeof orig !== 'function') return;
    proto[name] = function sealedHandleMethod(...args) {
      if (on()) {
        const refused = check(this, args);
        if (refused) {
          report(refused);
          return UV_EACCES;
        }
      }
      return orig.apply(this, args);
    };
  }
  /**
   * The TCP, pipe and UDP handle prototypes: from Node's bindings, or, where `process.binding` is
   * refused (a process under the permission model), from handles made here (a TCP handle bound to a
   * loopback port and closed at once, a UDP socket never bound) and those given (`known`).
   */
  function handlePrototypes(known) {
    const tcp = binding('tcp_wrap');
    const pipe = binding('pipe_wrap');
    const udp = binding('udp_wrap');
    const protos = { tcp: tcp?.TCP.prototype, pipe: pipe?.Pipe.prototype, udp: udp?.UDP.prototype };
    for (const h of known) {
      const name = h?.constructor?.name;
      if (name === 'Pipe') protos.pipe ??= Object.getPrototypeOf(h);
      if (name === 'TCP') protos.tcp ??= Object.getPrototypeOf(h);
    }
    if (!protos.tcp && typeof net._createServerHandle === 'function') {
      try {
        const h = net._createServerHandle('127.0.0.1', 0, 4);
        if (h !== null && typeof h === 'object') {
          protos.tcp = Object.getPrototypeOf(h);
          h.close();
        }
      } catch {
        /* no TCP handle to learn from: net.Socket.prototype.connect still guards TCP */
      }
    }
    if (!protos.udp) {
      try {
        const s = require('node:dgram').createSocket('udp4');
        for (const k of Object.getOwnPropertySymbols(s)) {
          const h = s[k]?.handle;
          if (h?.constructor?.name === 'UDP') protos.udp = Object.getPrototypeOf(h);
        }
        s.close();
      } catch {
        /* as above */
      }
    }
    return protos;
  }
  function installHandles(known = []) {
    const { tcp, pipe, udp } = handlePrototypes(known);
    const viaSocket = (kind) => (handle, args) => {
      const owner = ownerOf(handle);
      if (owner && unchecked.has(owner)) return null;
      // (req, address, port): the address the connection actually goes to, whatever name it was for.
      if (owner && approved.has(owner) && (kind === 'pipe' || addressAllowed(args[1], args[2]))) return null;
      const url = kind === 'pipe' ? `unix:${args[1]}` : `tcp://${showHost(args[1])}:${args[2]}`;
      const redirected = owner && approved.has(owner);
      return {
        method: 'CONNECT',
        url,
        reason: redirected
          ? 'network connection to an address the allowed host does not resolve to (a lookup that redirects it)'
          : 'network connection outside the sandbox (socket handle)',
      };
    };
    /** A bind or listen (a server, a Unix socket, a bound UDP socket): refused in a sealed process. */
    const serving = (scheme, what) => (_handle, args) => {
      if (!noListen) return null;
      let url = `${scheme}://(a socket opened from a descriptor)`;
      if (what === 'bind')
        url = scheme === 'unix' ? `unix:${String(args[0])}` : `${scheme}://${showHost(args[0])}:${String(args[1])}`;
      return {
        method: 'LISTEN',
        url,
        reason: `${what === 'bind' ? 'a socket bound' : 'a listening socket'} (a planner's process serves nothing)`,
      };
    };
    if (tcp) {
      wrapMethod(tcp, 'connect', viaSocket('tcp'));
      wrapMethod(tcp, 'connect6', viaSocket('tcp'));
      wrapMethod(tcp, 'bind', serving('tcp', 'bind'));
      wrapMethod(tcp, 'bind6', serving('tcp', 'bind'));
      wrapMethod(tcp, 'listen', serving('tcp', 'listen'));
    }
    if (pipe) {
      wrapMethod(pipe, 'connect', viaSocket('pipe'));
      wrapMethod(pipe, 'bind', serving('unix', 'bind'));
      wrapMethod(pipe, 'listen', serving('unix', 'listen'));
    }
    if (udp) {
      const sendTarget = (args) =>
        args.length >= 6 ? `udp://${showHost(args[4])}:${args[3]}` : 'udp://(connected socket)';
      for (const m of ['send', 'send6']) {
        wrapMethod(udp, m, (_h, args) => ({
          method: 'UDP',
          url: sendTarget(args),
          reason: 'UDP datagram outside the sandbox',
        }));
      }
      wrapMethod(udp, 'bind', serving('udp', 'bind'));
      wrapMethod(udp, 'bind6', serving('udp', 'bind'));
      for (const m of ['connect', 'connect6']) {
        wrapMethod(udp, m, (_h, args) => ({
          method: 'UDP',
          url: `udp://${showHost(args[0])}:${args[1]}`,
          reason: 'UDP connection outside the sandbox',
        }));
      }
    }
    installResolverHandle();
  }

  /**
   * c-ares under dns.Resolver: a resolver's handle (`resolver._handle`) answers queries itself, past
   * the patched Resolver methods; its prototype's queries are refused like theirs (an address
   * literal, or an allowed host, goes through).
   */
  function installResolverHandle() {
    let proto;
    try {
      proto = Object.getPrototypeOf(new dns.Resolver()._handle);
    } catch {
      return;
    }
    if (!proto) return;
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (!/^query|^getHostByAddr$/.test(name)) continue;
      // (req, name): the name a query is for is its second argument.
      wrapMethod(proto, name, (_h, args) =>
        hostAllowed(args[1])
          ? null
          : {
              method: 'DNS',
              url: `dns://${showHost(args[1])}`,
              reason: `DNS ${name} outside the sandbox (resolver handle)`,
            },
      );
    }
  }

  // dgram needs nothing above the handle: its send and connect end in UDP.prototype (above), and a
  // host name is resolved through dns.lookup first (below).

  // --- dns -----------------------------------------------------------------------------------
  const RESOLVE = [
    'resolve',
    'resolve4',
    'resolve6',
    'resolveAny',
    'resolveCaa',
    'resolveCname',
    'resolveMx',
    'resolveNaptr',
    'resolveNs',
    'resolvePtr',
    'resolveSoa',
    'resolveSrv',
    'resolveTxt',
    'reverse',
  ];

  function dnsRefusal(what, name) {
    report({ method: 'DNS', url: `dns://${showHost(name)}`, reason: `DNS ${what} outside the sandbox` });
    return refusal('EREFUSED', `${what} EREFUSED ${name}`);
  }
  /** A name the seal lets a query for: an address literal (no query is made) or an allowed host. */
  const nameOk = (name) => net.isIP(normHost(name)) !== 0 || hostAllowed(name);

  /** Reverse lookups query for an address: only an allowed host's address goes through. */
  const queryOk = (key) => (key === 'reverse' || key === 'lookupService' ? hostAllowed : nameOk);

  function wrapCallbackDns(target, key, what) {
    const orig = target[key];
    if (typeof orig !== 'function') return;
    const ok = queryOk(key);
    target[key] = function sealedDns(name, ...rest) {
      if (on() && !ok(name)) {
        const cb = rest[rest.length - 1];
        const err = dnsRefusal(what, name);
        if (typeof cb === 'function') process.nextTick(cb, err);
        return {};
      }
      return orig.call(this, name, ...rest);
    };
  }
  function wrapPromiseDns(target, key, what) {
    const orig = target[key];
    if (typeof orig !== 'function') return;
    const ok = queryOk(key);
    target[key] = function sealedDnsPromise(name, ...rest) {
      if (on() && !ok(name)) return Promise.reject(dnsRefusal(what, name));
      return orig.call(this, name, ...rest);
    };
  }
  function installDns() {
    wrapCallbackDns(dns, 'lookup', 'getaddrinfo');
    wrapCallbackDns(dns, 'lookupService', 'getnameinfo');
    for (const k of RESOLVE) {
      wrapCallbackDns(dns, k, k);
      wrapCallbackDns(dns.Resolver.prototype, k, k);
    }
    const p = dns.promises;
    wrapPromiseDns(p, 'lookup', 'getaddrinfo');
    wrapPromiseDns(p, 'lookupService', 'getnameinfo');
    for (const k of RESOLVE) {
      wrapPromiseDns(p, k, k);
      wrapPromiseDns(p.Resolver.prototype, k, k);
    }
  }

  // --- process.binding: the way around everything above ----------------------------------------
  function installBinding() {
    const orig = process.binding;
    process.binding = function sealedBinding(name) {
      if (on() && NET_BINDINGS.has(String(name))) {
        report({
          method: 'BINDING',
          url: `node:process.binding/${String(name)}`,
          reason: "Node's internal network binding requested",
        });
        throw refusal('ERR_ACCESS_DENIED', `process.binding('${String(name)}') is not available`);
      }
      return orig.call(this, name);
    };
  }

  // --- worker threads ------------------------------------------------------------------------
  let validExecArgv;
  /** process.execArgv without the flags a worker refuses (V8 and per-process options). */
  function workerExecArgv(Orig) {
    if (validExecArgv) return validExecArgv;
    try {
      const probe = new Orig('', { eval: true, execArgv: process.execArgv, stdout: true, stderr: true });
      probe.unref();
      void probe.terminate();
      validExecArgv = [...process.execArgv];
    } catch (e) {
      if (!e || e.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw e;
      const bad = new Set(
        String(e.message)
          .replace(/^[^:]*:\s*/, '')
          .split(/,\s*/),
      );
      validExecArgv = process.execArgv.filter((a) => !bad.has(a));
    }
    return validExecArgv;
  }

  function allowList() {
    const out = [];
    for (const [host, ports] of allowed) for (const port of ports) out.push({ host, port });
    return out;
  }

  /** Worker options that preload this module, sealed, reporting to this thread (in the current async context). */
  function sealOptions(Orig, options, extra) {
    const opts = options ?? {};
    const { port1, port2 } = new wt.MessageChannel();
    const scope = new AsyncResource('oneway-sealed-worker');
    port1.on('message', (e) => {
      // `route` sends each report where its owner says (a thread that serves one run after another);
      // otherwise it goes to this thread's reporter, in the context that started the worker.
      if (extra.route) extra.route(e);
      else scope.runInAsyncScope(() => report(e));
    });
    port1.unref();
    const execArgv = [...(opts.execArgv ?? workerExecArgv(Orig)), '--require', __filename];
    const config = {
      allow: [...allowList(), ...(extra.allow ?? [])],
      locked: locked || extra.locked === true,
      port: port2,
    };
    return {
      ...opts,
      execArgv,
      workerData: { [WORKER_KEY]: config, data: opts.workerData },
      transferList: [...(opts.transferList ?? []), port2],
    };
  }

  let OrigWorker;
  function installWorker() {
    OrigWorker = wt.Worker;
    const Orig = OrigWorker;
    class Worker extends Orig {
      constructor(filename, options) {
        super(filename, on() ? sealOptions(Orig, options, {}) : options);
      }
    }
    wt.Worker = Worker;
  }

  /** Called in a worker that was started sealed: configure from its workerData, before any other code. */
  function adoptWorkerConfig() {
    if (wt.isMainThread) return;
    const data = wt.workerData;
    const config = data !== null && typeof data === 'object' ? data[WORKER_KEY] : undefined;
    if (!config) return;
    wt.workerData = data.data;
    for (const a of config.allow ?? []) addAllowed(a.host, a.port);
    const port = config.port;
    port.unref();
    reporter = (e) => port.postMessage(e);
    armed++;
    if (config.locked) locked = true;
  }

  function addAllowed(host, port) {
    const h = normHost(host);
    let ports = allowed.get(h);
    if (!ports) allowed.set(h, (ports = new Set()));
    ports.add(Number(port));
    // An address literal is where the connection goes; a name's addresses are noted as the seal resolves it.
    if (net.isIP(h) !== 0) addAddress(h, h);
  }

  function installAll(handles) {
    installed = true;
    installNet();
    installHandles(handles);
    installDns();
    installBinding();
    installWorker();
  }

  const api = {
    /** Patches everything (idempotent); nothing is refused until `arm`. */
    install() {
      if (installed) return api;
      installAll([]);
      adoptWorkerConfig();
      syncBuiltinESMExports();
      return api;
    },
    /**
     * Seals this whole process for good (a sealed process: child-seal.cjs, before any of its own
     * code): patched, armed and locked, letting out exactly `allow`, each refusal to `reporter`.
     * `handles` are handles of this process whose prototypes the handle layer patches where
     * `process.binding` is refused (the permission model).
     */
    sealProcess({ allow, reporter: to, handles }) {
      tsxPipe = false;
      noListen = true;
      if (!installed) installAll(handles);
      for (const a of allow) addAllowed(a.host, a.port);
      reporter = to;
      armed++;
      locked = true;
      syncBuiltinESMExports();
    },
    /** Reference-counted: the seal refuses while armed at least once (or locked). */
    arm() {
      armed++;
    },
    disarm() {
      if (!locked && armed > 0) armed--;
    },
    /** From now on this thread stays sealed: `disarm`, `allow` and `setReporter` do nothing. */
    lock() {
      locked = true;
    },
    get armed() {
      return on();
    },
    get locked() {
      return locked;
    },
    /** Lets connections to an origin's host and port through (http: 80 and https: 443 by default). */
    allow(origin) {
      if (locked) return;
      const u = new URL(origin);
      addAllowed(u.hostname, u.port || (u.protocol === 'https:' || u.protocol === 'wss:' ? 443 : 80));
    },
    allowed: allowList,
    /** Where refused attempts go: called in the async context of the code that made them. */
    setReporter(fn) {
      if (locked && reporter) return;
      reporter = fn;
      for (const e of pending.splice(0)) report(e);
    },
    /** Reports an attempt as this thread's own (in the caller's async context). */
    report,
    /** How many attempts this thread has refused (or passed on from its own workers). */
    get reported() {
      return reported;
    },
    /** Whether this thread reports to the thread that started it (a sealed worker). */
    get reportsToParent() {
      return !wt.isMainThread && reporter !== null && locked;
    },
    /**
     * Starts a worker sealed from its first line, whatever the state of this thread's seal;
     * `locked` seals it for good, `allow` adds origins it may reach, `route` says where its reports go.
     */
    sealedWorker(filename, options, extra = {}) {
      api.install();
      return new OrigWorker(filename, sealOptions(OrigWorker, options, extra));
    },
  };
  return api;
}

let seal = globalThis[STATE];
if (!seal) {
  seal = create();
  Object.defineProperty(globalThis, STATE, { value: seal, enumerable: false, configurable: false, writable: false });
  // Preloaded into a sealed worker (`--require`): configure and seal before any of its code runs.
  if (!wt.isMainThread && wt.workerData && typeof wt.workerData === 'object' && wt.workerData[WORKER_KEY])
    seal.install();
}
module.exports = seal;
module.exports.WORKER_KEY = WORKER_KEY;
