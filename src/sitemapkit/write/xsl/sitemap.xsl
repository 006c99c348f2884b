<?xml version="1.0" encoding="UTF-8"?>
<!-- sitemapkit's default stylesheet: shows a sitemap or sitemap index as a readable table in a browser.
     Written for sitemapkit (MIT). Browsers apply it through <?xml-stylesheet?>; crawlers ignore it. -->
<xsl:stylesheet version="1.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"
    xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
    xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
    xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
    xmlns:xhtml="http://www.w3.org/1999/xhtml"
    exclude-result-prefixes="sm image video news xhtml">
  <xsl:output method="html" encoding="UTF-8" indent="yes" doctype-system="about:legacy-compat"/>

  <xsl:template match="/">
    <html lang="en">
      <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>
          <xsl:choose>
            <xsl:when test="sm:sitemapindex">Sitemap index</xsl:when>
            <xsl:otherwise>Sitemap</xsl:otherwise>
          </xsl:choose>
        </title>
        <style>
          body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem;
                 color: #222; }
          h1 { font-size: 1.5rem; margin-bottom: .2rem; }
          p.note { color: #666; margin-top: 0; }
          table { border-collapse: collapse; width: 100%; }
          th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #e5e5e5;
                   vertical-align: top; }
          th { background: #f4f4f4; position: sticky; top: 0; }
          td.url { word-break: break-all; }
          td.num, th.num { text-align: right; white-space: nowrap; }
          td.date { white-space: nowrap; color: #555; }
          small { color: #777; }
        </style>
      </head>
      <body>
        <xsl:apply-templates select="sm:sitemapindex | sm:urlset"/>
      </body>
    </html>
  </xsl:template>

  <xsl:template match="sm:sitemapindex">
    <h1>Sitemap index</h1>
    <p class="note">This index lists <xsl:value-of select="count(sm:sitemap)"/> sitemap file(s).
      It is meant for search engines; this page is how it looks to people.</p>
    <table>
      <tr><th class="num">#</th><th>Sitemap</th><th>Last modified</th></tr>
      <xsl:for-each select="sm:sitemap">
        <tr>
          <td class="num"><xsl:value-of select="position()"/></td>
          <td class="url"><a href="{sm:loc}"><xsl:value-of select="sm:loc"/></a></td>
          <td class="date"><xsl:value-of select="sm:lastmod"/></td>
        </tr>
      </xsl:for-each>
    </table>
  </xsl:template>

  <xsl:template match="sm:urlset">
    <h1>Sitemap</h1>
    <p class="note">This sitemap lists <xsl:value-of select="count(sm:url)"/> URL(s).
      It is meant for search engines; this page is how it looks to people.</p>
    <table>
      <tr>
        <th class="num">#</th><th>URL</th><th>Last modified</th><th>Change frequency</th>
        <th class="num">Priority</th><th class="num">Extras</th>
      </tr>
      <xsl:for-each select="sm:url">
        <tr>
          <td class="num"><xsl:value-of select="position()"/></td>
          <td class="url">
            <a href="{sm:loc}"><xsl:value-of select="sm:loc"/></a>
            <xsl:for-each select="xhtml:link[@rel='alternate']">
              <br/><small><xsl:value-of select="@hreflang"/>: <xsl:value-of select="@href"/></small>
            </xsl:for-each>
            <xsl:for-each select="news:news">
              <br/><small>news: <xsl:value-of select="news:title"/></small>
            </xsl:for-each>
            <xsl:for-each select="video:video">
              <br/><small>video: <xsl:value-of select="video:title"/></small>
            </xsl:for-each>
          </td>
          <td class="date"><xsl:value-of select="sm:lastmod"/></td>
          <td><xsl:value-of select="sm:changefreq"/></td>
          <td class="num"><xsl:value-of select="sm:priority"/></td>
          <td class="num">
            <xsl:if test="image:image"><xsl:value-of select="count(image:image)"/> image(s)</xsl:if>
          </td>
        </tr>
      </xsl:for-each>
    </table>
  </xsl:template>
</xsl:stylesheet>
