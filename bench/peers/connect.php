<?php
// Shared by careful.php and simple.php (require'd): their command line, fail(), and the connections from
// ROWPUMP_MYSQL_URL (mysql://user[:pass]@host[:port]/db[?socket=/path]; the password may instead be in
// ROWPUMP_MYSQL_PASSWORD) and ROWPUMP_REDIS_URL (redis://[[user]:pass@]host[:port][/db]). Both come from
// the environment, never the command line; passwords are never printed.

// Messages name the script that was run (SCRIPT_FILENAME), not this file.
function fail(string $message): never {
    fwrite(STDERR, basename($_SERVER['SCRIPT_FILENAME']) . ": $message\n");
    exit(1);
}

// [table, queue key, row limit (0: all)] from the command line.
function arguments(array $argv): array {
    if (count($argv) < 3 || count($argv) > 4 || (isset($argv[3]) && !ctype_digit($argv[3]))) {
        fwrite(STDERR, 'usage: php ' . basename($_SERVER['SCRIPT_FILENAME']) . " TABLE QUEUE_KEY [ROW_LIMIT]\n");
        exit(2);
    }
    if (!preg_match('/^[A-Za-z0-9_]+$/', $argv[1])) fail("bad table name: {$argv[1]}");
    return [$argv[1], $argv[2], (int) ($argv[3] ?? 0)];
}

// parse_url() of an environment variable holding a URL with the given scheme.
function url_from_env(string $name, string $scheme): array {
    $url = getenv($name);
    if ($url === false || $url === '') fail("$name is not set; run: eval \"\$(scripts/services.sh env)\"");
    $parts = parse_url($url);
    if ($parts === false || ($parts['scheme'] ?? '') !== $scheme) fail("$name is not a $scheme:// URL");
    return $parts;
}

function connect_mysql(): mysqli {
    $url = url_from_env('ROWPUMP_MYSQL_URL', 'mysql');
    parse_str($url['query'] ?? '', $query);
    $password = isset($url['pass']) ? rawurldecode($url['pass']) : (string) getenv('ROWPUMP_MYSQL_PASSWORD');
    $database = rawurldecode(ltrim($url['path'] ?? '', '/'));
    if ($database === '') fail('ROWPUMP_MYSQL_URL names no database');
    mysqli_report(MYSQLI_REPORT_ERROR | MYSQLI_REPORT_STRICT);
    try {
        $mysql = mysqli_init();
        // Integer columns come back as PHP ints and so stay numbers in the JSON, as in rowpump's payloads.
        $mysql->options(MYSQLI_OPT_INT_AND_FLOAT_NATIVE, 1);
        $mysql->real_connect($url['host'] ?? 'localhost', rawurldecode($url['user'] ?? ''), $password, $database,
                             $url['port'] ?? 3306, $query['socket'] ?? null);
        $mysql->set_charset('utf8mb4');
    } catch (mysqli_sql_exception $e) {
        fail('MySQL: ' . $e->getMessage());  // the server's message names the user, never the password
    }
    return $mysql;
}

function connect_redis(): Redis {
    $url = url_from_env('ROWPUMP_REDIS_URL', 'redis');
    $redis = new Redis();
    try {
        $redis->connect($url['host'] ?? '127.0.0.1', $url['port'] ?? 6379);
        if (isset($url['pass']) && $url['pass'] !== '') {
            $password = rawurldecode($url['pass']);
            $user = rawurldecode($url['user'] ?? '');
            $redis->auth($user !== '' ? [$user, $password] : $password);
        }
        $db = ltrim($url['path'] ?? '', '/');
        if ($db !== '') $redis->select((int) $db);
    } catch (RedisException $e) {
        fail('Redis: ' . $e->getMessage());
    }
    return $redis;
}
