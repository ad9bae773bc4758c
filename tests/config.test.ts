import { loadActionsConfig } from '../actions/config';
import { loadConfig as loadEngineConfig } from '../engine/core/config';

const loadConfig = (env: Record<string, string>) => loadActionsConfig(env, 'http://localhost:8080');

/** Configuration errors stop start-up with the variable's name, and never repeat a secret it held. */
describe('configuration', () => {
  test.each(['AI_BASE_URL', 'LOKI_URL'])('%s must be an http(s) URL; the refusal does not repeat the value', (name) => {
    const secret = 'hunter2-credential';
    for (const bad of [`ftp://bot:${secret}@logs.example.com`, `bot:${secret}@not a url`]) {
      let message = '';
      try {
        loadConfig({ [name]: bad });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toContain(`${name} must be an http(s) URL`);
      expect(message).not.toContain(secret);
    }
    expect(loadConfig({ [name]: 'https://bot:pw@host.example.com:3100/' })).toBeDefined();
  });

  test('an http(s) URL loses its trailing slashes', () => {
    expect(loadConfig({ LOKI_URL: 'http://127.0.0.1:3100//' }).logs.lokiUrl).toBe('http://127.0.0.1:3100');
    expect(loadConfig({ AI_BASE_URL: 'https://llm.example.com/v1/' }).ai.baseUrl).toBe('https://llm.example.com/v1');
  });
});

describe('read replica settings', () => {
  test('DATABASE_READ_REPLICA_URLS: comma-separated postgres:// URLs; another kind is refused without repeating it', () => {
    const config = loadEngineConfig({
      DATABASE_READ_REPLICA_URLS: ' postgres://r:pw@replica-1:5432/app , postgresql://replica-2/app,',
    });
    expect(config.replicas.urls).toEqual(['postgres://r:pw@replica-1:5432/app', 'postgresql://replica-2/app']);
    expect(config.replicas.readYourWritesSeconds).toBe(5);
    expect(loadEngineConfig({ READ_YOUR_WRITES_SECONDS: '0' }).replicas.readYourWritesSeconds).toBe(0);
    expect(loadEngineConfig({}).replicas.urls).toEqual([]);
    let message = '';
    try {
      loadEngineConfig({ DATABASE_READ_REPLICA_URLS: 'mysql://r:hunter2@replica/app' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('DATABASE_READ_REPLICA_URLS must hold postgres:// URLs');
    expect(message).not.toContain('hunter2');
  });
});

describe('pooler configuration', () => {
  test('DATABASE_POOLER=transaction turns named prepared statements off unless DATABASE_PREPARED_STATEMENTS says', () => {
    expect(loadEngineConfig({}).pooler).toEqual({ transactionMode: false, preparedStatements: true });
    expect(loadEngineConfig({ DATABASE_POOLER: 'transaction' }).pooler.preparedStatements).toBe(false);
    const both = { DATABASE_POOLER: 'transaction', DATABASE_PREPARED_STATEMENTS: 'true' };
    expect(loadEngineConfig(both).pooler.preparedStatements).toBe(true);
    expect(loadEngineConfig({ DATABASE_LISTEN_URL: 'postgres://db:5432/x' }).pooler.listenUrl).toBe(
      'postgres://db:5432/x',
    );
    expect(() => loadEngineConfig({ DATABASE_POOLER: 'statement' })).toThrow('DATABASE_POOLER must be one of');
  });
});

describe('HTTP keep-alive', () => {
  test('HTTP_KEEP_ALIVE_SECONDS: 65 unless set, longer than a load balancer idle timeout; not a number is refused', () => {
    expect(loadEngineConfig({}).keepAliveSeconds).toBe(65);
    expect(loadEngineConfig({ HTTP_KEEP_ALIVE_SECONDS: '7' }).keepAliveSeconds).toBe(7);
    expect(() => loadEngineConfig({ HTTP_KEEP_ALIVE_SECONDS: 'long' })).toThrow('HTTP_KEEP_ALIVE_SECONDS');
  });
});
