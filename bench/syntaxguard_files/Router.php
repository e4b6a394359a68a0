<?php

declare(strict_types=1);

namespace App\Http;

use InvalidArgumentException;

/**
 * Matches a request path to a handler.
 */
final class Router
{
    /** @var array<string, array<string, callable>> */
    private array $routes = [];

    public function get(string $path, callable $handler): self
    {
        return $this->add('GET', $path, $handler);
    }

    public function add(string $method, string $path, callable $handler): self
    {
        if ($path === '' || $path[0] !== '/') {
            throw new InvalidArgumentException("path must start with /: {$path}");
        }
        $this->routes[$method][$path] = $handler;
        return $this;
    }

    public function dispatch(string $method, string $path): string
    {
        foreach ($this->routes[$method] ?? [] as $pattern => $handler) {
            $regex = '#^' . preg_replace('#\{(\w+)\}#', '(?P<$1>[^/]+)', $pattern) . '$#';
            if (preg_match($regex, $path, $matches)) {
                $params = array_filter($matches, 'is_string', ARRAY_FILTER_USE_KEY);
                return (string) $handler(...$params);
            }
        }
        return sprintf('404 %s %s', $method, $path);
    }
}

interface Middleware
{
    public function handle(string $path, callable $next): string;
}

function router(): Router
{
    return (new Router())->get('/hello/{name}', fn (string $name) => "Hello {$name}");
}
